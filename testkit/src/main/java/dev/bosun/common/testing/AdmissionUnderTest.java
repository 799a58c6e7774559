package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.WebhookSettings;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An operator's admission webhook on the shared control plane, for ITs: the configuration its chart
 * renders with {@code webhook.enabled} (the same entries, operations and failure policies), but
 * calling this JVM at {@code https://localhost:<port>} (the name the certificate carries) and only
 * for one test namespace, so the other tests of the control plane never meet it.
 */
public final class AdmissionUnderTest implements AutoCloseable {

  private static final String SCOPE_LABEL = "bosun.dev/admission-test";

  /** The finalizer a test puts on an object to hold its delete. */
  private static final String HELD_BY = "test.bosun.dev/held";

  /**
   * What kubectl apply printed and its exit code.
   *
   * @param exitCode kubectl's exit code
   * @param output what it printed (stdout and stderr)
   */
  public record Applied(int exitCode, String output) {}

  /** The test's admin client. */
  public final KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient();

  private final String namespace;
  private final String configuration;
  private final int port;
  private AdmissionWebhook webhook;

  /**
   * Installs {@code crds}, creates {@code namespace} and the configuration the module's chart
   * ({@code chart/} of the module under test) renders, pointed at a free local port; nothing
   * answers there until {@link #serve}.
   */
  public AdmissionUnderTest(String namespace, String... crds) {
    this.namespace = namespace;
    this.configuration = namespace + "-it-" + UUID.randomUUID().toString().substring(0, 6);
    this.port = LocalProcess.freePort("127.0.0.1");
    Crds.install(client, crds);
    Crds.namespace(client, namespace, Map.of(SCOPE_LABEL, configuration), Map.of());
    // As the chart installs it: no caBundle yet, which the operator fills in.
    client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .resource(fromChart())
        .create();
  }

  private ValidatingWebhookConfiguration fromChart() {
    ValidatingWebhookConfiguration rendered =
        HelmChartFixture.only(
            new HelmChartFixture(Path.of("chart"), "bosun", "bosun-system")
                .render("webhook.enabled", "true"),
            ValidatingWebhookConfiguration.class);
    rendered.getMetadata().setName(configuration);
    for (ValidatingWebhook w : rendered.getWebhooks()) {
      String path = w.getClientConfig().getService().getPath();
      w.setClientConfig(
          new WebhookClientConfigBuilder().withUrl("https://localhost:" + port + path).build());
      w.setNamespaceSelector(
          new LabelSelectorBuilder().withMatchLabels(Map.of(SCOPE_LABEL, configuration)).build());
    }
    return rendered;
  }

  /** Where the webhook serves: this configuration, the test namespace, a name of localhost. */
  public WebhookSettings settings() {
    return new WebhookSettings(
        port, configuration, namespace, "admission-tls", List.of("localhost"));
  }

  /**
   * Starts the operator's webhook with {@code start} (given {@link #settings()}) and waits until
   * the operator has set the configuration's caBundle to its CA.
   */
  public AdmissionWebhook serve(Function<WebhookSettings, AdmissionWebhook> start) {
    webhook = start.apply(settings());
    String expected =
        Base64.getEncoder().encodeToString(webhook.caBundlePem().getBytes(StandardCharsets.UTF_8));
    await("the operator sets the caBundle")
        .atMost(Duration.ofSeconds(30))
        .until(() -> expected.equals(caBundle()));
    return webhook;
  }

  /** The webhook {@link #serve} started. */
  public AdmissionWebhook webhook() {
    return webhook;
  }

  /** Stops the webhook's server, as when none of the operator's Pods runs. */
  public void stopWebhook() {
    webhook.close();
  }

  /** The configuration's name. */
  public String configuration() {
    return configuration;
  }

  /** The caBundle every webhook of the configuration has, or null when they differ or have none. */
  public String caBundle() {
    ValidatingWebhookConfiguration c =
        client
            .admissionRegistration()
            .v1()
            .validatingWebhookConfigurations()
            .withName(configuration)
            .get();
    // Every webhook of the configuration, or the API server cannot verify one of the routes.
    List<String> bundles =
        c.getWebhooks().stream().map(w -> w.getClientConfig().getCaBundle()).distinct().toList();
    return bundles.size() == 1 ? bundles.get(0) : null;
  }

  /** kubectl apply of a {@code kind} named {@code name} in the test namespace with {@code spec}. */
  public Applied apply(String apiVersion, String kind, String name, String spec) throws Exception {
    String yaml =
        "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n%s"
            .formatted(apiVersion, kind, name, namespace, spec.indent(2));
    Process p =
        new ProcessBuilder(
                "kubectl",
                "--kubeconfig",
                ControlPlaneExtension.controlPlane().kubeconfig().toString(),
                "apply",
                "-f",
                "-")
            .redirectErrorStream(true)
            .start();
    try (var in = p.getOutputStream()) {
      in.write(yaml.getBytes(StandardCharsets.UTF_8));
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Applied(p.exitValue(), output);
  }

  /**
   * Asserts that kubectl apply of a new {@code kind} is refused by the kind's webhook with the
   * InvalidSpec text naming {@code field}, and that nothing was stored.
   */
  public void assertRefused(String apiVersion, String kind, String name, String spec, String field)
      throws Exception {
    Applied applied = apply(apiVersion, kind, name, spec);

    String group = apiVersion.substring(0, apiVersion.indexOf('/'));
    String webhookName = kind.toLowerCase(Locale.ROOT) + "s." + group;
    assertThat(applied.exitCode()).as(applied.output()).isNotZero();
    assertThat(applied.output())
        .contains("admission webhook \"" + webhookName + "\" denied the request")
        .contains("invalid spec: ")
        .contains(field);
    assertThat(get(apiVersion, kind, name)).isNull();
  }

  /**
   * Asserts that kubectl apply of a new {@code kind}, good or not, is refused because the webhook
   * cannot be reached: creates fail closed.
   */
  public void assertCreateFailsClosed(String apiVersion, String kind, String name, String spec)
      throws Exception {
    Applied unseen = apply(apiVersion, kind, name, spec);
    assertThat(unseen.exitCode()).as(unseen.output()).isNotZero();
    assertThat(unseen.output()).contains("failed calling webhook");
    assertThat(get(apiVersion, kind, name)).isNull();
  }

  /**
   * Asserts that, with the webhook down, the stored {@code kind} {@code name} takes a finalizer, is
   * deleted, and goes once the finalizer is removed: the metadata-only updates a controller makes
   * (failurePolicy Ignore for UPDATE) and the DELETE (never sent) all pass.
   */
  public void assertDeletedThroughAFinalizer(String apiVersion, String kind, String name) {
    var resource =
        client.genericKubernetesResources(apiVersion, kind).inNamespace(namespace).withName(name);
    resource.edit(
        o -> {
          o.getMetadata().getFinalizers().add(HELD_BY);
          return o;
        });
    assertThat(resource.delete()).isNotEmpty();
    assertThat(resource.get().getMetadata().getDeletionTimestamp()).isNotNull();
    resource.edit(
        o -> {
          o.getMetadata().getFinalizers().remove(HELD_BY);
          return o;
        });
    await("deleted").atMost(Duration.ofSeconds(30)).until(() -> resource.get() == null);
  }

  /**
   * Waits until the operator has written a condition with reason InvalidSpec naming {@code field}
   * to the status of {@code kind} {@code name}: the backstop for what the webhook did not see.
   */
  public void awaitInvalidSpec(String apiVersion, String kind, String name, String field) {
    await("InvalidSpec in the status of " + name)
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                invalidSpecMessages(get(apiVersion, kind, name)).stream()
                    .anyMatch(m -> m.startsWith(AdmissionReviews.PREFIX) && m.contains(field)));
  }

  @SuppressWarnings("unchecked")
  private static List<String> invalidSpecMessages(GenericKubernetesResource object) {
    Object status = object == null ? null : object.getAdditionalProperties().get("status");
    Object conditions = status instanceof Map<?, ?> m ? m.get("conditions") : null;
    if (!(conditions instanceof List<?> list)) {
      return List.of();
    }
    return list.stream()
        .map(c -> (Map<String, Object>) c)
        .filter(c -> "InvalidSpec".equals(c.get("reason")))
        .map(c -> String.valueOf(c.get("message")))
        .toList();
  }

  /** The stored object, or null. */
  public GenericKubernetesResource get(String apiVersion, String kind, String name) {
    return client
        .genericKubernetesResources(apiVersion, kind)
        .inNamespace(namespace)
        .withName(name)
        .get();
  }

  @Override
  public void close() {
    if (webhook != null) {
      webhook.close();
    }
    client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .withName(configuration)
        .delete();
    client.namespaces().withName(namespace).delete();
    client.close();
  }
}
