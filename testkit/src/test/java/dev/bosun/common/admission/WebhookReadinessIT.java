package dev.bosun.common.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.tls.TrustedCa;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * When an operator replica's webhook may be called: only once the configuration's caBundle is the
 * CA it serves (a replica is ready for the webhook Service, and for {@code helm install --wait},
 * only then), and after a replica replaced the CA every other replica takes up the new one from the
 * Secret instead of writing its old one back.
 */
@ExtendWith(ControlPlaneExtension.class)
class WebhookReadinessIT {

  /** Fast enough for a test; the operators check every {@link WebhookCaBundle#CHECK_EVERY}. */
  private static final Duration CHECK = Duration.ofMillis(300);

  private final List<AutoCloseable> started = new ArrayList<>();
  private KubernetesClient client;
  private String namespace;
  private String configuration;

  @BeforeEach
  void namespace() {
    client = ControlPlaneExtension.controlPlane().adminClient();
    String id = UUID.randomUUID().toString().substring(0, 6);
    namespace = Crds.namespace(client, "ready-" + id, Map.of(), Map.of());
    configuration = "readiness-it-" + id;
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : started) {
      c.close();
    }
    client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .withName(configuration)
        .delete();
    client.close();
  }

  @Test
  void aReplicaIsReadyOnlyOnceTheCaBundleIsItsCa() throws Exception {
    AdmissionWebhook replica = replica();
    OperatorRuntime runtime =
        replica.servesFor(
            new OperatorRuntime(
                    OperatorSettings.local("readiness-test").watching(Set.of(namespace)), client)
                .register(new ConfigMaps()));
    started.add(runtime);
    runtime.start();

    // The chart's configuration is not there yet: the API server could not call this replica.
    await("a replica without a configuration to stay unready")
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !replica.ready() && readyz(runtime) == 503);

    createConfiguration();
    await("the replica ready once its CA is the caBundle")
        .atMost(Duration.ofSeconds(15))
        .until(() -> replica.ready() && readyz(runtime) == 200);
    assertThat(caBundle()).isEqualTo(base64(replica.caBundlePem()));

    replica.close();
    assertThat(replica.ready()).as("a closed webhook").isFalse();
    assertThat(readyz(runtime)).isEqualTo(503);
  }

  @Test
  void aCaReplacedByOneReplicaIsTakenUpByTheOthersNotWrittenBack() throws Exception {
    createConfiguration();
    AdmissionWebhook first = replica();
    AdmissionWebhook second = replica();
    await("both replicas ready").atMost(Duration.ofSeconds(15)).until(() -> ready(first, second));
    String oldCa = first.caBundlePem();
    assertThat(second.caBundlePem()).isEqualTo(oldCa);

    // The Secret is lost; a replica starting now issues a new CA and puts it in the bundle.
    client.secrets().inNamespace(namespace).withName("webhook-tls").delete();
    await("the Secret gone")
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.secrets().inNamespace(namespace).withName("webhook-tls").get() == null);
    AdmissionWebhook third = replica();
    String newCa = third.caBundlePem();
    assertThat(newCa).isNotEqualTo(oldCa);

    await("every replica serving the new CA and ready")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                newCa.equals(first.caBundlePem())
                    && newCa.equals(second.caBundlePem())
                    && ready(first, second, third));
    // Nobody writes the old CA back: the bundle stays the new one while the replicas keep checking.
    await("the caBundle to stay the new CA")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> base64(newCa).equals(caBundle()));
    // And the old replicas present certificates the API server can now verify.
    for (AdmissionWebhook replica : List.of(first, second, third)) {
      assertThat(handshake(replica, newCa)).as("a handshake trusting only the new CA").isTrue();
    }
  }

  private AdmissionWebhook replica() {
    WebhookSettings settings =
        new WebhookSettings(
            LocalProcess.freePort("127.0.0.1"),
            configuration,
            namespace,
            "webhook-tls",
            List.of("localhost"));
    AdmissionWebhook webhook =
        AdmissionWebhook.start(
            client,
            "readiness-test",
            settings,
            Map.of(
                "/validate/things",
                new ValidatingRoute<>(GenericKubernetesResource.class, (o, old) -> List.of())),
            CHECK);
    started.add(webhook);
    return webhook;
  }

  /** Something to reconcile: JOSDK starts no operator without a controller. */
  @ControllerConfiguration(name = "readiness-test-configmaps")
  static final class ConfigMaps implements Reconciler<ConfigMap> {
    @Override
    public UpdateControl<ConfigMap> reconcile(ConfigMap resource, Context<ConfigMap> context) {
      return UpdateControl.noUpdate();
    }
  }

  private static boolean ready(AdmissionWebhook... replicas) {
    return List.of(replicas).stream().allMatch(AdmissionWebhook::ready);
  }

  /** A configuration as the charts render it, for a kind no one creates: never called. */
  private void createConfiguration() {
    ValidatingWebhookConfiguration c =
        new ValidatingWebhookConfigurationBuilder()
            .withNewMetadata()
            .withName(configuration)
            .endMetadata()
            .addNewWebhook()
            .withName("things.readiness.test.bosun.dev")
            .withNewClientConfig()
            .withUrl("https://localhost:1/validate/things")
            .endClientConfig()
            .addNewRule()
            .withApiGroups("readiness.test.bosun.dev")
            .withApiVersions("v1")
            .withResources("things")
            .withOperations("CREATE")
            .endRule()
            .withFailurePolicy("Ignore")
            .withSideEffects("None")
            .withAdmissionReviewVersions("v1")
            .endWebhook()
            .build();
    client.admissionRegistration().v1().validatingWebhookConfigurations().resource(c).create();
  }

  private String caBundle() {
    return client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .withName(configuration)
        .get()
        .getWebhooks()
        .get(0)
        .getClientConfig()
        .getCaBundle();
  }

  private static String base64(String pem) {
    return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8));
  }

  private static int readyz(OperatorRuntime runtime) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtime.httpPort() + "/readyz"))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  /** Whether a client trusting only {@code caPem} accepts the replica's certificate. */
  private static boolean handshake(AdmissionWebhook replica, String caPem) throws Exception {
    HttpClient trusting = HttpClient.newBuilder().sslContext(TrustedCa.sslContext(caPem)).build();
    try {
      trusting.send(
          HttpRequest.newBuilder(
                  URI.create("https://localhost:" + replica.port() + "/validate/things"))
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.discarding());
      return true;
    } catch (javax.net.ssl.SSLHandshakeException e) {
      return false;
    }
  }
}
