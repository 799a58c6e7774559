package dev.bosun.web;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.web.reconciler.WebServiceReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/** Runs the WebService operator against the cluster of the current kubeconfig or ServiceAccount. */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    OperatorRuntime.runDeployed(client -> create(System.getenv(), client));
  }

  /** The operator configured by environment variables as its chart sets them, not yet started. */
  public static OperatorRuntime create(Map<String, String> env, KubernetesClient client) {
    return create(OperatorSettings.fromMap(WebServiceOperator.NAME, env), client);
  }

  /** The operator with its reconciler registered, not yet started. */
  public static OperatorRuntime create(OperatorSettings settings, KubernetesClient client) {
    return new OperatorRuntime(settings, client)
        .register(new WebServiceReconciler(new EventRecorder(client, WebServiceOperator.NAME)));
  }
}
