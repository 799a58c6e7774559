package dev.bosun.etcd.chart;

import static dev.bosun.common.testing.ChartAssertions.assertDefaultSettingsEnv;
import static dev.bosun.common.testing.ChartAssertions.assertLimitedToName;
import static dev.bosun.common.testing.ChartAssertions.env;
import static dev.bosun.common.testing.ChartAssertions.grants;
import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.NamespaceScopedChartContract;
import dev.bosun.common.tls.ServiceDnsNames;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.Main;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's Helm chart, linted and rendered in-process by helm-java: what it installs, the
 * RBAC it grants (exactly what the operator does, no wildcards), the pod's hardening, the
 * environment contract with {@link OperatorSettings} and {@link Main}, and the CRD copies.
 */
class EtcdChartTest extends NamespaceScopedChartContract {

  private static final List<String> CRD_FILES =
      List.of("etcdbackups.etcd.bosun.dev-v1.yml", "etcdclusters.etcd.bosun.dev-v1.yml");
  private static final String FULLNAME = "bosun-bosun-etcd-operator";
  private static final HelmChartFixture CHART = moduleChart();

  /** What the operator does, as "apiGroup|resource|verb"; the chart must grant exactly this. */
  private static final Set<String> OPERATOR_PERMISSIONS =
      permissions(
          grants(
              "etcd.bosun.dev",
              List.of("etcdclusters", "etcdbackups"),
              "get list watch patch update"),
          grants(
              "etcd.bosun.dev",
              List.of("etcdclusters/status", "etcdbackups/status"),
              "get patch update"),
          grants("", "pods", "get list watch create patch update delete"),
          grants("", "persistentvolumeclaims", "get list watch create patch update delete"),
          grants("", "services", "get list watch create patch update"),
          grants("", "secrets", "get create patch"),
          grants("", "events", "create patch update"),
          grants("policy", "poddisruptionbudgets", "get list watch create patch"));

  EtcdChartTest() {
    super(CHART, EtcdOperator.NAME, "etcd.bosun.dev", OPERATOR_PERMISSIONS);
  }

  @Test
  void shipsTheCrdsOfExactlyItsKinds() {
    assertThat(CHART.shippedCrds()).isEqualTo(CRD_FILES);
  }

  @Test
  void lintFailsWhenTheBackupVolumeSizeBreaksTheSchema(@TempDir Path copy) {
    HelmChartFixture broken = CHART.copyTo(copy);
    broken.editValues("\n    size: 10Gi\n", "\n    size: lots\n");

    LintResult result = broken.lint();

    assertThat(result.isFailed()).isTrue();
    assertThat(String.join("\n", result.getMessages())).contains("schema").contains("size");
  }

  @Test
  void environmentFollowsTheOperatorsSettingsContract() {
    Deployment deployment = only(CHART.render(), Deployment.class);
    Map<String, String> resolved =
        assertDefaultSettingsEnv(deployment, EtcdOperator.NAME, NAMESPACE);
    assertThat(resolved)
        .containsEntry(EtcdOperator.OPERATOR_IMAGE_ENV, "bosun/etcd-operator:0.1.0")
        .doesNotContainKey(Main.BACKUP_DIR);
    assertThat(Main.backupDir(resolved)).isEmpty();
    // In a cluster, members are addressed by their Service DNS names.
    assertThat(Main.addressing(resolved)).isInstanceOf(dev.bosun.etcd.plan.ServiceAddressing.class);
  }

  @Test
  void watchNamespacesReachTheOperator() {
    Deployment deployment =
        only(
            CHART.render("watchNamespaces[0]", "team-a", "watchNamespaces[1]", "team-b"),
            Deployment.class);
    OperatorSettings settings =
        OperatorSettings.fromMap(EtcdOperator.NAME, resolvedEnv(deployment, NAMESPACE));
    assertThat(settings.watchNamespaces()).containsExactlyInAnyOrder("team-a", "team-b");
  }

  @Test
  void theBackupVolumeIsMountedWhereTheOperatorLooksAndKeptOnUninstall() {
    List<HasMetadata> objects = CHART.render("backup.volume.enabled", "true");
    Deployment deployment = only(objects, Deployment.class);
    PersistentVolumeClaim claim = only(objects, PersistentVolumeClaim.class);

    assertThat(claim.getMetadata().getName()).isEqualTo(FULLNAME + "-backups");
    assertThat(claim.getMetadata().getAnnotations())
        .containsEntry("helm.sh/resource-policy", "keep");
    Map<String, String> resolved = resolvedEnv(deployment, NAMESPACE);
    assertThat(Main.backupDir(resolved)).contains(Path.of("/var/lib/bosun/backups"));
    assertThat(operatorContainer(deployment).getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/var/lib/bosun/backups"));
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
        .anySatisfy(
            v ->
                assertThat(
                        v.getPersistentVolumeClaim() == null
                            ? null
                            : v.getPersistentVolumeClaim().getClaimName())
                    .isEqualTo(FULLNAME + "-backups"));

    List<HasMetadata> existing =
        CHART.render("backup.volume.enabled", "true", "backup.volume.existingClaim", "snapshots");
    assertThat(all(existing, PersistentVolumeClaim.class)).isEmpty();
    assertThat(only(existing, Deployment.class).getSpec().getTemplate().getSpec().getVolumes())
        .anySatisfy(
            v ->
                assertThat(
                        v.getPersistentVolumeClaim() == null
                            ? null
                            : v.getPersistentVolumeClaim().getClaimName())
                    .isEqualTo("snapshots"));
  }

  @Test
  void withTheBackupVolumeRestoringMembersFetchOverHttpsFromTheRestoreServiceOfEveryReplica() {
    List<HasMetadata> objects =
        // The route alone (EtcdWebhookChartTest has it next to the webhook, on another port).
        CHART.render(
            "webhook.enabled",
            "false",
            "backup.volume.enabled",
            "true",
            "backup.volume.restorePort",
            "9443");
    Deployment deployment = only(objects, Deployment.class);
    Service restore = service(objects, FULLNAME + "-restore");

    RestoreEndpoint endpoint =
        RestoreEndpoint.fromEnvironment(resolvedEnv(deployment, NAMESPACE)).orElseThrow();
    assertThat(endpoint.url())
        .isEqualTo(URI.create("https://" + FULLNAME + "-restore." + NAMESPACE + ".svc:9443"));
    assertThat(endpoint.port()).isEqualTo(9443);
    // The certificate carries every name a Pod may use for the Service; it is kept in a Secret of
    // the release namespace.
    assertThat(endpoint.dnsNames())
        .containsExactlyElementsOf(ServiceDnsNames.of(FULLNAME + "-restore", NAMESPACE));
    assertThat(endpoint.namespace()).isEqualTo(NAMESPACE);
    assertThat(endpoint.tlsSecret()).isEqualTo(FULLNAME + "-tls");
    assertThat(operatorContainer(deployment).getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("https-restore");
              assertThat(p.getContainerPort()).isEqualTo(9443);
            });
    assertThat(restore.getSpec().getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPort()).isEqualTo(9443);
              assertThat(p.getTargetPort().getStrVal()).isEqualTo("https-restore");
            });
    assertThat(deployment.getSpec().getSelector().getMatchLabels())
        .isEqualTo(restore.getSpec().getSelector());
    // Prometheus and the kubelet keep plain HTTP on the metrics port, which serves no restore.
    assertThat(service(objects, FULLNAME + "-metrics").getSpec().getPorts())
        .extracting(p -> p.getName())
        .containsExactly("http-metrics");
    assertThat(CHART.notes("backup.volume.enabled", "true"))
        .contains("https://" + FULLNAME + "-restore.", FULLNAME + "-tls");

    Deployment custom =
        only(
            CHART.render(
                "backup.volume.enabled",
                "true",
                "backup.volume.operatorUrl",
                "https://etcd-operator.example:8443"),
            Deployment.class);
    RestoreEndpoint customEndpoint =
        RestoreEndpoint.fromEnvironment(resolvedEnv(custom, NAMESPACE)).orElseThrow();
    assertThat(customEndpoint.url()).isEqualTo(URI.create("https://etcd-operator.example:8443"));
    assertThat(customEndpoint.dnsNames()).contains("etcd-operator.example");
    CHART.assertSchemaRejects(
        List.of("backup.volume.enabled", "true", "backup.volume.operatorUrl", "http://op:8080"),
        "operatorUrl");

    // Without the volume (nor the webhook) there is nothing to serve: no URL, no restore Service,
    // no certificate.
    List<HasMetadata> plain = CHART.render("webhook.enabled", "false");
    assertThat(
            RestoreEndpoint.fromEnvironment(resolvedEnv(only(plain, Deployment.class), NAMESPACE)))
        .isEmpty();
    assertThat(all(plain, Service.class))
        .extracting(x -> x.getMetadata().getName())
        .containsExactly(FULLNAME + "-metrics");
    assertThat(all(plain, Role.class))
        .noneSatisfy(r -> assertThat(r.getMetadata().getName()).isEqualTo(FULLNAME + "-tls"));
  }

  @Test
  void theCertificateSecretIsGrantedByNameInTheReleaseNamespaceOnly() {
    for (String[] values :
        List.of(
            new String[] {"backup.volume.enabled", "true"},
            new String[] {"backup.volume.enabled", "true", "watchNamespaces[0]", "team-a"})) {
      List<HasMetadata> objects = CHART.render(values);
      Role role = named(objects, Role.class, FULLNAME + "-tls");
      assertThat(role.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
      assertThat(permissions(role.getRules()))
          .isEqualTo(grants("", "secrets", "create get update"));
      // Reading and renewing are limited to the one Secret.
      assertLimitedToName(role, FULLNAME + "-tls");
      RoleBinding binding = named(objects, RoleBinding.class, FULLNAME + "-tls");
      assertThat(binding.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
      assertThat(binding.getRoleRef().getName()).isEqualTo(FULLNAME + "-tls");
      assertThat(binding.getSubjects())
          .singleElement()
          .satisfies(
              sa -> {
                assertThat(sa.getName()).isEqualTo(FULLNAME);
                assertThat(sa.getNamespace()).isEqualTo(NAMESPACE);
              });
    }
    assertThat(
            all(CHART.render("backup.volume.enabled", "true", "rbac.create", "false"), Role.class))
        .isEmpty();
  }

  private static Service service(List<HasMetadata> objects, String name) {
    return named(objects, Service.class, name);
  }

  private static <T extends HasMetadata> T named(
      List<HasMetadata> objects, Class<T> kind, String name) {
    return all(objects, kind).stream()
        .filter(o -> o.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no " + kind.getSimpleName() + " " + name + " rendered"));
  }

  @Test
  void imageValuesReachTheOperatorAndItsRestoreContainers() {
    Deployment deployment = only(CHART.render("image.tag", "1.2.3"), Deployment.class);
    assertThat(operatorContainer(deployment).getImage()).isEqualTo("bosun/etcd-operator:1.2.3");
    assertThat(env(deployment).get(EtcdOperator.OPERATOR_IMAGE_ENV).getValue())
        .isEqualTo("bosun/etcd-operator:1.2.3");
  }

  @Test
  void notesShowAFirstCluster() {
    assertThat(CHART.notes()).contains("kind: EtcdCluster", "every namespace", "demo-client:2379");
  }
}
