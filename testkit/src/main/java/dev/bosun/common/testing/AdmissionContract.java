package dev.bosun.common.testing;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.WebhookSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every operator's admission IT proves first, on the shared control plane, with one webhook
 * served for the whole class ({@link AdmissionUnderTest}): each row of its static {@code
 * badObjects()} table (what, kind, name, spec, the field the denial names) is refused by kubectl
 * apply and not stored. The IT adds its good objects and the webhook-down checks in later {@link
 * Order}s.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class AdmissionContract {

  /** The webhook under test. */
  protected AdmissionUnderTest admission;

  /** The test's admin client. */
  protected KubernetesClient client;

  private final String namespace;
  private final String apiVersion;
  private final String[] crds;

  /** The operator's kinds of {@code apiVersion} (their CRDs {@code crds}), in {@code namespace}. */
  protected AdmissionContract(String namespace, String apiVersion, String... crds) {
    this.namespace = namespace;
    this.apiVersion = apiVersion;
    this.crds = crds.clone();
  }

  /** Starts the operator's webhook as its Main does, where {@code settings} say. */
  protected abstract AdmissionWebhook serve(WebhookSettings settings);

  @BeforeAll
  void serveTheWebhook() {
    admission = new AdmissionUnderTest(namespace, crds);
    client = admission.client;
    admission.serve(this::serve);
  }

  @AfterAll
  void cleanup() {
    if (admission != null) {
      admission.close();
    }
  }

  @Order(1)
  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("badObjects")
  void kubectlApplyOfEachBadObjectIsRefusedNamingTheField(
      String what, String kind, String name, String spec, String field) throws Exception {
    admission.assertRefused(apiVersion, kind, name, spec, field);
  }
}
