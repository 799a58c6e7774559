package dev.bosun.mysql.chart;

import static dev.bosun.common.testing.ChartAssertions.assertDefaultSettingsEnv;
import static dev.bosun.common.testing.ChartAssertions.env;
import static dev.bosun.common.testing.ChartAssertions.grants;
import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.NamespaceScopedChartContract;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.mysql.MySQLOperator;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator's Helm chart, linted and rendered in-process by helm-java: what it installs, the
 * RBAC it grants (exactly what the operator needs, no wildcards), the hardening of the pod, the
 * environment contract with {@link OperatorSettings}, its values schema, and the CRD copy it ships.
 */
class MySQLChartTest extends NamespaceScopedChartContract {

  private static final Path CRD_SOURCE =
      Path.of("..", "crds", "mysql.bosun.dev", "mysqlclusters.mysql.bosun.dev-v1.yml");

  private static final HelmChartFixture CHART = moduleChart();

  /** What the operator does, as "apiGroup|resource|verb"; the chart must grant exactly this. */
  private static final Set<String> OPERATOR_PERMISSIONS =
      permissions(
          grants("mysql.bosun.dev", "mysqlclusters", "get list watch patch update"),
          grants("mysql.bosun.dev", "mysqlbackups", "get list watch patch update"),
          grants("mysql.bosun.dev", "mysqlclusters/status", "get patch update"),
          grants("mysql.bosun.dev", "mysqlbackups/status", "get patch update"),
          grants("apps", "statefulsets", "get list watch create patch update delete"),
          grants("", "services", "get list watch create patch update delete"),
          grants("", "configmaps", "get list watch create patch update delete"),
          // Secrets: read and generate, never update (passwords of existing data); delete only
          // for the restore Secret (token, CA, client options) of a finished or repeated restore.
          grants("", "secrets", "get list watch create delete"),
          // The Job loading a cluster's fromBackup in the cluster's own namespace.
          grants("batch", "jobs", "get list watch create delete"),
          // Pods: the role label moves with the primary; upgrades delete one pod at a time.
          grants("", "pods", "get list watch patch update delete"),
          grants("", "events", "create patch update"),
          grants("policy", "poddisruptionbudgets", "get list watch create patch update"),
          // A replica that cannot finish crash recovery gets a new volume: its claim is deleted
          // after its PersistentVolume is set to Retain (the volume right only cluster-wide).
          grants("", "persistentvolumeclaims", "get delete"),
          grants("", "persistentvolumes", "get patch update"));

  MySQLChartTest() {
    super(CHART, MySQLOperator.NAME, "mysql.bosun.dev", OPERATOR_PERMISSIONS);
  }

  @Override
  protected List<String> alsoRenderedByDefault() {
    return List.of(
        "Service/" + fullname() + "-restore",
        "Role/" + fullname() + "-tls",
        "RoleBinding/" + fullname() + "-tls");
  }

  @Test
  void restoreJobsFetchFromTheRestoreServiceOverHttpsWithTheOperatorsImage() {
    List<HasMetadata> objects = CHART.render();
    Deployment deployment = only(objects, Deployment.class);
    RestoreEndpoint endpoint =
        RestoreEndpoint.fromEnvironment(resolvedEnv(deployment, NAMESPACE)).orElseThrow();
    assertThat(endpoint.url())
        .isEqualTo(URI.create("https://" + fullname() + "-restore." + NAMESPACE + ".svc:8444"));
    assertThat(endpoint.port()).isEqualTo(8444);
    assertThat(endpoint.tlsSecret()).isEqualTo(fullname() + "-tls");
    assertThat(env(deployment).get(MySQLOperator.OPERATOR_IMAGE_ENV).getValue())
        .isEqualTo(operatorContainer(deployment).getImage());
    Service restore =
        all(objects, Service.class).stream()
            .filter(s -> s.getMetadata().getName().endsWith("-restore"))
            .findFirst()
            .orElseThrow();
    assertThat(restore.getSpec().getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPort()).isEqualTo(8444);
              assertThat(p.getTargetPort().getStrVal()).isEqualTo("https-restore");
            });
    assertThat(operatorContainer(deployment).getPorts())
        .anySatisfy(p -> assertThat(p.getName()).isEqualTo("https-restore"));
    // With the webhook, one certificate for both: the environment names the Secret once.
    Deployment both = only(CHART.render("webhook.enabled", "true"), Deployment.class);
    assertThat(operatorContainer(both).getEnv())
        .filteredOn(e -> e.getName().equals("BOSUN_TLS_SECRET"))
        .hasSize(1);
  }

  @Override
  protected Set<String> clusterModeOnly() {
    return permissions(grants("", "persistentvolumes", "get patch update"));
  }

  @Test
  void environmentFollowsTheOperatorsSettingsContract() {
    assertDefaultSettingsEnv(only(CHART.render(), Deployment.class), MySQLOperator.NAME, NAMESPACE);
  }

  @Test
  void notesShowHowToCreateAndWatchAFirstCluster() {
    String notes = CHART.notes();

    assertThat(notes).contains("kubectl get mysqlclusters -w");
    assertThat(notes).contains("can only use store.s3");
    GenericKubernetesResource cluster =
        HelmChartFixture.serialization()
            .unmarshal(HelmChartFixture.heredoc(notes), GenericKubernetesResource.class);
    CustomResourceDefinition crd =
        HelmChartFixture.read(CRD_SOURCE, CustomResourceDefinition.class);
    CustomResourceDefinitionVersion version = crd.getSpec().getVersions().get(0);
    assertThat(cluster.getApiVersion())
        .isEqualTo(crd.getSpec().getGroup() + "/" + version.getName());
    assertThat(cluster.getKind()).isEqualTo(crd.getSpec().getNames().getKind());
    Map<?, ?> spec = (Map<?, ?>) cluster.getAdditionalProperties().get("spec");
    assertThat(version.getSchema().getOpenAPIV3Schema().getProperties().get("spec").getProperties())
        .containsKeys(spec.keySet().stream().map(String::valueOf).toArray(String[]::new));
  }

  @Test
  void aBackupVolumeIsMountedAndNamedToTheOperator() {
    Deployment deployment =
        only(
            CHART.render("backupVolume.claimName", "mysql-backups", "pollMillis", "750"),
            Deployment.class);

    // The deprecated value still mounts its claim, named to the operator as every operator's is.
    assertThat(env(deployment).get("BOSUN_BACKUP_DIR").getValue())
        .isEqualTo("/var/lib/bosun/backups");
    assertThat(env(deployment).get("BOSUN_MYSQL_POLL_MILLIS").getValue()).isEqualTo("750");
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(v -> v.getPersistentVolumeClaim() != null)
        .singleElement()
        .satisfies(
            v ->
                assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("mysql-backups"));
    assertThat(operatorContainer(deployment).getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/var/lib/bosun/backups"));
    assertThat(env(only(CHART.render(), Deployment.class)))
        .doesNotContainKeys("BOSUN_BACKUP_DIR", "BOSUN_MYSQL_BACKUP_ROOT");
    assertThat(CHART.render()).noneMatch(PersistentVolumeClaim.class::isInstance);
  }

  @Test
  void theBackupVolumeHasTheValuesOfEveryOperatorChart() {
    List<HasMetadata> created = CHART.render("backup.volume.enabled", "true");
    PersistentVolumeClaim claim = only(created, PersistentVolumeClaim.class);
    assertThat(claim.getSpec().getResources().getRequests().get("storage").toString())
        .isEqualTo("10Gi");
    assertThat(claimMounted(only(created, Deployment.class)))
        .isEqualTo(claim.getMetadata().getName());
    assertThat(env(only(created, Deployment.class)).get("BOSUN_BACKUP_DIR").getValue())
        .isEqualTo("/var/lib/bosun/backups");

    List<HasMetadata> existing =
        CHART.render("backup.volume.enabled", "true", "backup.volume.existingClaim", "kept");
    assertThat(existing).noneMatch(PersistentVolumeClaim.class::isInstance);
    assertThat(claimMounted(only(existing, Deployment.class))).isEqualTo("kept");
  }

  private static String claimMounted(Deployment deployment) {
    return deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getPersistentVolumeClaim() != null)
        .map(v -> v.getPersistentVolumeClaim().getClaimName())
        .reduce((a, b) -> a + "," + b)
        .orElse(null);
  }

  /** Values of its own settings the schema refuses (the shared ones are the contract's). */
  static Stream<Arguments> valuesTheSchemaRejects() {
    return Stream.of(
        Arguments.of(List.of("pollMillis", "10"), "/pollMillis"),
        Arguments.of(List.of("restore.port", "80"), "/restore/port"),
        Arguments.of(List.of("restore.operatorUrl", "http://x"), "/restore/operatorUrl"),
        Arguments.of(List.of("backupVolume.claimName", "Bad_Claim"), "/backupVolume/claimName"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valuesTheSchemaRejects")
  void schemaRejectsInvalidValues(List<String> keysAndValues, String where) {
    CHART.assertSchemaRejects(keysAndValues, where);
  }
}
