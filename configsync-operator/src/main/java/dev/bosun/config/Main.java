package dev.bosun.config;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.config.reconciler.ConfigMapSyncReconciler;
import dev.bosun.config.reconciler.ConfigMonitorReconciler;
import dev.bosun.config.reconciler.SecretSyncReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Map;

/** Runs the configsync operator against the cluster of the current kubeconfig or ServiceAccount. */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    OperatorRuntime.runDeployed(client -> create(System.getenv(), client));
  }

  /** The operator configured by environment variables as its chart sets them, not yet started. */
  public static OperatorRuntime create(Map<String, String> env, KubernetesClient client) {
    return create(
        OperatorSettings.fromMap(ConfigSyncOperator.NAME, env),
        client,
        destinationConsentRequired(env));
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

  /** The operator with its three reconcilers registered, not yet started. */
  public static OperatorRuntime create(
      OperatorSettings settings, KubernetesClient client, boolean destinationConsentRequired) {
    EventRecorder events = new EventRecorder(client, ConfigSyncOperator.NAME);
    Clock clock = Clock.systemUTC();
    return new OperatorRuntime(settings, client)
        .register(
            new ConfigMapSyncReconciler(
                destinationConsentRequired, settings.watchNamespaces(), events, clock))
        .register(
            new SecretSyncReconciler(
                destinationConsentRequired, settings.watchNamespaces(), events, clock))
        .register(new ConfigMonitorReconciler(events, clock));
  }
}
