package dev.bosun.mysql.chart;

import static dev.bosun.common.testing.ChartAssertions.assertDefaultSettingsEnv;
import static dev.bosun.common.testing.ChartAssertions.env;
import static dev.bosun.common.testing.ChartAssertions.grants;
import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.NamespaceScopedChartContract;
import dev.bosun.mysql.MySQLOperator;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apps.Deployment;
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
          // Secrets: read and generate, never update or delete (passwords of existing data).
          grants("", "secrets", "get list watch create"),
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

    assertThat(env(deployment).get("BOSUN_MYSQL_BACKUP_ROOT").getValue()).isEqualTo("/backups");
    assertThat(env(deployment).get("BOSUN_MYSQL_POLL_MILLIS").getValue()).isEqualTo("750");
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(v -> v.getPersistentVolumeClaim() != null)
        .singleElement()
        .satisfies(
            v ->
                assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("mysql-backups"));
    assertThat(operatorContainer(deployment).getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/backups"));
    assertThat(env(only(CHART.render(), Deployment.class)))
        .doesNotContainKey("BOSUN_MYSQL_BACKUP_ROOT");
  }

  /** Values of its own settings the schema refuses (the shared ones are the contract's). */
  static Stream<Arguments> valuesTheSchemaRejects() {
    return Stream.of(
        Arguments.of(List.of("pollMillis", "10"), "/pollMillis"),
        Arguments.of(List.of("backupVolume.claimName", "Bad_Claim"), "/backupVolume/claimName"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valuesTheSchemaRejects")
  void schemaRejectsInvalidValues(List<String> keysAndValues, String where) {
    CHART.assertSchemaRejects(keysAndValues, where);
  }
}
