package dev.bosun.config;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.ValidatingRoute;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.runtime.DnsCache;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.config.reconciler.ConfigMapSyncReconciler;
import dev.bosun.config.reconciler.ConfigMonitorReconciler;
import dev.bosun.config.reconciler.MonitorAdmission;
import dev.bosun.config.reconciler.SecretSyncReconciler;
import dev.bosun.config.reconciler.SyncAdmission;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import dev.bosun.config.v1alpha1.ConfigMonitor;
import dev.bosun.config.v1alpha1.SecretSync;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Map;

/** Runs the configsync operator against the cluster of the current kubeconfig or ServiceAccount. */
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
    OperatorRuntime runtime =
        create(
            OperatorSettings.fromMap(ConfigSyncOperator.NAME, env),
            client,
            destinationConsentRequired(env));
    // Every replica answers admission reviews, leader or not, and is ready once the API server
    // trusts it: the Service needs an endpoint that works.
    WebhookSettings.fromEnvironment(env)
        .ifPresent(w -> serveAdmission(client, w).servesFor(runtime));
    return runtime;
  }

  /** {@value ConfigSyncOperator#REQUIRE_DESTINATION_CONSENT}: true unless set to false. */
  public static boolean destinationConsentRequired(Map<String, String> env) {
    String value = env.getOrDefault(ConfigSyncOperator.REQUIRE_DESTINATION_CONSENT, "true").trim();
    if (!value.equals("true") && !value.equals("false")) {
      throw new IllegalArgumentException(
          ConfigSyncOperator.REQUIRE_DESTINATION_CONSENT + " must be true or false: " + value);
    }
    return Boolean.parseBoolean(value);
  }

  /**
   * The operator with its three reconcilers registered, not yet started; the copy writers' threads
   * stop when it closes.
   */
  public static OperatorRuntime create(
      OperatorSettings settings, KubernetesClient client, boolean destinationConsentRequired) {
    EventRecorder events = new EventRecorder(client, ConfigSyncOperator.NAME);
    Clock clock = Clock.systemUTC();
    var configMaps =
        new ConfigMapSyncReconciler(
            destinationConsentRequired, settings.watchNamespaces(), events, clock);
    var secrets =
        new SecretSyncReconciler(
            destinationConsentRequired, settings.watchNamespaces(), events, clock);
    return new OperatorRuntime(settings, client)
        .register(configMaps)
        .register(secrets)
        .register(new ConfigMonitorReconciler(events, clock))
        .onClose(configMaps)
        .onClose(secrets);
  }

  /**
   * The admission webhook: ConfigMapSyncs, SecretSyncs and ConfigMonitors on their routes, checked
   * by the rules the reconcilers report as InvalidSpec, over HTTPS with the certificate in the
   * operator's Secret, and the configuration's caBundle kept on its CA.
   */
  public static AdmissionWebhook serveAdmission(KubernetesClient client, WebhookSettings webhook) {
    return AdmissionWebhook.start(
        client,
        ConfigSyncOperator.NAME,
        webhook,
        Map.of(
            SyncAdmission.CONFIGMAPSYNCS,
            new ValidatingRoute<>(ConfigMapSync.class, SyncAdmission.configMapSyncs()),
            SyncAdmission.SECRETSYNCS,
            new ValidatingRoute<>(SecretSync.class, SyncAdmission.secretSyncs()),
            MonitorAdmission.PATH,
            new ValidatingRoute<>(ConfigMonitor.class, new MonitorAdmission())));
  }
}
