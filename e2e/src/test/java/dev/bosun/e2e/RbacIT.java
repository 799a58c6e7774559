package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.ServiceAccountTokens;
import dev.bosun.platform.PlatformRelease;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The charts' RBAC is least privilege, and enough: what it does not grant, an operator cannot do.
 */
@ExtendWith(E2eClusterExtension.class)
class RbacIT {

  private static PlatformRelease release;
  private static KubernetesClient webservice;
  private static KubernetesClient configsync;

  @BeforeAll
  static void clients() {
    release = PlatformRelease.shared();
    webservice = release.clientAs("webservice", b -> {});
    configsync = release.clientAs("configsync", b -> {});
  }

  @AfterAll
  static void close() {
    webservice.close();
    configsync.close();
  }

  private static void assertForbidden(Runnable call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
  }

  @Test
  void theWebServiceOperatorCannotTouchWhatItsChartDoesNotGrant() {
    assertForbidden(() -> webservice.secrets().inAnyNamespace().list());
    assertForbidden(() -> webservice.configMaps().inNamespace("default").list());
    assertForbidden(
        () ->
            webservice
                .namespaces()
                .resource(
                    new NamespaceBuilder().withNewMetadata().withName("x").endMetadata().build())
                .create());
    assertForbidden(
        () ->
            webservice
                .genericKubernetesResources("config.bosun.dev/v1alpha1", "ConfigMapSync")
                .inAnyNamespace()
                .list());
    assertForbidden(() -> webservice.rbac().clusterRoles().list());
    // What it is granted works (the scenario in PlatformIT uses all of it).
    assertThat(webservice.apps().deployments().inAnyNamespace().list()).isNotNull();
  }

  @Test
  void theConfigSyncOperatorCanRollWorkloadsButNotCreateThem() {
    assertForbidden(
        () ->
            configsync
                .apps()
                .deployments()
                .inNamespace("default")
                .resource(
                    new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("not-mine")
                        .endMetadata()
                        .withNewSpec()
                        .withNewSelector()
                        .addToMatchLabels("a", "b")
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .addToLabels("a", "b")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("c")
                        .withImage("x")
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build())
                .create());
    assertForbidden(
        () -> configsync.apps().deployments().inNamespace("default").withName("x").delete());
    assertForbidden(
        () ->
            configsync
                .genericKubernetesResources("web.bosun.dev/v1alpha1", "WebService")
                .inAnyNamespace()
                .list());
    assertForbidden(() -> configsync.rbac().clusterRoleBindings().list());
  }

  /**
   * An operator missing one permission does not run quietly broken: it fails to start, naming what
   * it could not do. Shown with the WebService operator's own ClusterRole minus Services.
   */
  @Test
  void anOperatorMissingAPermissionFailsToStart() {
    KubernetesClient admin = release.admin();
    ClusterRole granted =
        admin.rbac().clusterRoles().withName(release.serviceAccount("webservice")).get();
    assertThat(granted).as("the chart's ClusterRole").isNotNull();
    ClusterRole crippled =
        new ClusterRoleBuilder()
            .withNewMetadata()
            .withName("rbac-it-webservice-without-services")
            .endMetadata()
            .withRules(
                granted.getRules().stream()
                    .filter(r -> !r.getResources().contains("services"))
                    .toList())
            .build();
    admin.rbac().clusterRoles().resource(crippled).serverSideApply();
    admin
        .serviceAccounts()
        .inNamespace(PlatformRelease.NAMESPACE)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("rbac-it-crippled")
                .endMetadata()
                .build())
        .serverSideApply();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("rbac-it-crippled")
                .endMetadata()
                .withNewRoleRef(
                    "rbac.authorization.k8s.io", "ClusterRole", crippled.getMetadata().getName())
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("rbac-it-crippled")
                .withNamespace(PlatformRelease.NAMESPACE)
                .endSubject()
                .build())
        .serverSideApply();
    String token = ServiceAccountTokens.await(admin, PlatformRelease.NAMESPACE, "rbac-it-crippled");

    Map<String, String> env = new LinkedHashMap<>(release.environment("webservice"));
    env.put(OperatorSettings.HTTP_PORT, "-1");
    env.put(OperatorSettings.LEADER_ELECTION, "false");
    try (KubernetesClient crippledClient = release.cluster().clientWithToken(token, b -> {})) {
      var runtime = dev.bosun.web.Main.create(env, crippledClient);
      try {
        assertThatThrownBy(runtime::start).hasStackTraceContaining("services");
      } finally {
        runtime.close();
      }
    }
  }
}
