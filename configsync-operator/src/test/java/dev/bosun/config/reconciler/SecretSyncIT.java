package dev.bosun.config.reconciler;

import static dev.bosun.config.ConfigSyncOperator.ACCEPT_SYNC_FROM;
import static dev.bosun.config.ConfigSyncOperator.ALLOW_SYNC_TO;
import static dev.bosun.config.ConfigSyncOperator.SOURCE_LABEL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.config.ConfigSyncUnderTest;
import dev.bosun.config.v1alpha1.SecretSync;
import dev.bosun.config.v1alpha1.SecretSyncSpec;
import dev.bosun.config.v1alpha1.SecretSyncStatus;
import dev.bosun.config.v1alpha1.secretsyncspec.Destinations;
import dev.bosun.config.v1alpha1.secretsyncspec.Source;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SecretSync on the real control plane with RBAC enforced: a user who cannot read a Secret cannot
 * obtain a copy of it through Bosun.
 */
@ExtendWith(ControlPlaneExtension.class)
class SecretSyncIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  @RegisterExtension static final RunningOperator operator = ConfigSyncUnderTest.operator();
  private static final KubernetesClient admin = operator.testClient;

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static Secret secret(
      String ns, String name, Map<String, String> labels, Map<String, String> annotations) {
    return admin
        .secrets()
        .inNamespace(ns)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .withAnnotations(annotations)
                .endMetadata()
                .withType("kubernetes.io/basic-auth")
                .addToData("username", b64("app"))
                .addToData("password", b64("s3cr3t"))
                .build())
        .create();
  }

  private static SecretSync secretSync(String ns, String name, String source, String dest) {
    SecretSyncSpec spec = new SecretSyncSpec();
    Source s = new Source();
    s.setName(source);
    spec.setSource(s);
    Destinations d = new Destinations();
    d.setNamespaces(List.of(dest));
    spec.setDestinations(d);
    SecretSync sync = new SecretSync();
    sync.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).build());
    sync.setSpec(spec);
    return sync;
  }

  private static SecretSyncStatus status(String ns, String name) {
    SecretSync sync = admin.resources(SecretSync.class).inNamespace(ns).withName(name).get();
    assertThat(sync.getStatus()).isNotNull();
    return sync.getStatus();
  }

  /** A client acting as {@code user}: the admin impersonates, the API server enforces RBAC. */
  private static KubernetesClient as(String user) {
    Config config = ControlPlaneExtension.controlPlane().adminConfig();
    config.setImpersonateUsername(user);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  @Test
  void theOwnerCopiesASecretWithItsTypeAndData() {
    String src = ConfigSyncUnderTest.namespace(admin, "vault", Map.of(), Map.of());
    String dst =
        ConfigSyncUnderTest.namespace(admin, "app", Map.of(), Map.of(ACCEPT_SYNC_FROM, src));
    secret(src, "db", Map.of(SOURCE_LABEL, "true"), Map.of(ALLOW_SYNC_TO, dst));
    admin
        .resources(SecretSync.class)
        .inNamespace(src)
        .resource(secretSync(src, "db", "db", dst))
        .create();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Secret copy = admin.secrets().inNamespace(dst).withName("db").get();
              assertThat(copy).isNotNull();
              assertThat(copy.getType()).isEqualTo("kubernetes.io/basic-auth");
              assertThat(copy.getData()).containsEntry("password", b64("s3cr3t"));
              assertThat(Conditions.isTrue(status(src, "db").getConditions(), "Ready")).isTrue();
            });
    // The status tells where and which version, never the content or a hash of it.
    String status =
        admin
            .resources(SecretSync.class)
            .inNamespace(src)
            .withName("db")
            .get()
            .getStatus()
            .toString();
    assertThat(status).doesNotContain(b64("s3cr3t")).doesNotContain("s3cr3t");
  }

  @Test
  void aUserWhoCannotReadTheSourceCannotObtainACopy() {
    String src = ConfigSyncUnderTest.namespace(admin, "vault", Map.of(), Map.of());
    String dst =
        ConfigSyncUnderTest.namespace(admin, "mallory", Map.of(), Map.of(ACCEPT_SYNC_FROM, "*"));
    // One Secret is not marked for syncing at all; the other is, but only towards "prod".
    secret(src, "root-token", Map.of(), Map.of());
    secret(src, "db", Map.of(SOURCE_LABEL, "true"), Map.of(ALLOW_SYNC_TO, "prod"));
    // Mallory may create SecretSyncs in the source namespace and read Secrets in her own.
    admin
        .rbac()
        .roles()
        .inNamespace(src)
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("sync-author")
                .endMetadata()
                .addNewRule()
                .withApiGroups("config.bosun.dev")
                .withResources("secretsyncs")
                .withVerbs("get", "list", "watch", "create")
                .endRule()
                .build())
        .create();
    admin
        .rbac()
        .roles()
        .inNamespace(dst)
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("secret-reader")
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("secrets")
                .withVerbs("get", "list")
                .endRule()
                .build())
        .create();
    for (var binding : List.of(src + "/sync-author", dst + "/secret-reader")) {
      String ns = binding.split("/")[0];
      String role = binding.split("/")[1];
      admin
          .rbac()
          .roleBindings()
          .inNamespace(ns)
          .resource(
              new RoleBindingBuilder()
                  .withNewMetadata()
                  .withName("mallory-" + role)
                  .endMetadata()
                  .withNewRoleRef()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("Role")
                  .withName(role)
                  .endRoleRef()
                  .addNewSubject()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("User")
                  .withName("mallory")
                  .endSubject()
                  .build())
          .create();
    }

    try (KubernetesClient mallory = as("mallory")) {
      assertThatThrownBy(() -> mallory.secrets().inNamespace(src).withName("db").get())
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));

      mallory
          .resources(SecretSync.class)
          .inNamespace(src)
          .resource(secretSync(src, "steal-token", "root-token", dst))
          .create();
      mallory
          .resources(SecretSync.class)
          .inNamespace(src)
          .resource(secretSync(src, "steal-db", "db", dst))
          .create();

      await()
          .atMost(TIMEOUT)
          .untilAsserted(
              () -> {
                var token =
                    Conditions.find(status(src, "steal-token").getConditions(), "Ready")
                        .orElseThrow();
                assertThat(token.getReason()).isEqualTo("SourceNotFound");
                assertThat(token.getMessage()).contains("not marked for syncing");
                assertThat(status(src, "steal-db").getDestinations())
                    .singleElement()
                    .satisfies(d -> assertThat(d.getState().getValue()).isEqualTo("NotAllowed"));
              });
      // Nothing reached Mallory's namespace, where she could have read it.
      // (Only the ServiceAccount token the controller manager creates is there.)
      assertThat(mallory.secrets().inNamespace(dst).list().getItems())
          .extracting(Secret::getType)
          .containsOnly("kubernetes.io/service-account-token");
      assertThat(mallory.secrets().inNamespace(dst).withName("root-token").get()).isNull();
      assertThat(mallory.secrets().inNamespace(dst).withName("db").get()).isNull();
    }
  }
}
