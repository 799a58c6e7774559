package dev.bosun.web;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.ValidatingRoute;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.runtime.DnsCache;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.web.reconciler.WebServiceAdmission;
import dev.bosun.web.reconciler.WebServiceReconciler;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Optional;

/** Runs the WebService operator against the cluster of the current kubeconfig or ServiceAccount. */
public final class Main {

  // Before any class of the operator starts the logging system, which fixes the JVM's address
  // cache for good (DnsCacheTest).
  static {
    DnsCache.followPodChanges();
  }

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    OperatorRuntime.runDeployed(client -> create(System.getenv(), client));
  }

  /**
   * The operator configured by environment variables as its chart sets them, not yet started; with
   * {@value WebhookSettings#CONFIGURATION} set, the admission webhook is served from now until the
   * runtime closes.
   */
  public static OperatorRuntime create(Map<String, String> env, KubernetesClient client) {
    return create(
        OperatorSettings.fromMap(WebServiceOperator.NAME, env),
        client,
        WebhookSettings.fromEnvironment(env));
  }

  /** The operator with its reconciler registered, not yet started. */
  public static OperatorRuntime create(OperatorSettings settings, KubernetesClient client) {
    return create(settings, client, Optional.empty());
  }

  /** The same, with the admission webhook {@code webhook} describes (empty: none). */
  public static OperatorRuntime create(
      OperatorSettings settings, KubernetesClient client, Optional<WebhookSettings> webhook) {
    OperatorRuntime runtime = new OperatorRuntime(settings, client);
    // Every replica answers admission reviews, leader or not, and is ready once the API server
    // trusts it: the Service needs an endpoint that works.
    webhook.ifPresent(w -> serveAdmission(client, w).servesFor(runtime));
    WebServiceReconciler reconciler =
        new WebServiceReconciler(new EventRecorder(client, WebServiceOperator.NAME));
    // The gray releases' background checks stop with the operator.
    return runtime.register(reconciler).onClose(reconciler);
  }

  /**
   * The admission webhook: WebServices on {@link WebServiceAdmission#PATH}, checked by the rules
   * the reconciler reports as InvalidSpec, over HTTPS with the certificate in the operator's
   * Secret, and the configuration's caBundle kept on its CA.
   */
  public static AdmissionWebhook serveAdmission(KubernetesClient client, WebhookSettings webhook) {
    return AdmissionWebhook.start(
        client,
        WebServiceOperator.NAME,
        webhook,
        Map.of(
            WebServiceAdmission.PATH,
            new ValidatingRoute<>(WebService.class, new WebServiceAdmission())));
  }
}
