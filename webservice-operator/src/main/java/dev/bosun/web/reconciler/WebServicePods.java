package dev.bosun.web.reconciler;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;

import dev.bosun.common.meta.Labels;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * A WebService's Pods (stable and canary: both carry its selector labels), read when a rollout
 * needs explaining rather than watched. Served from the API server's watch cache (resourceVersion
 * 0): a Pod a moment old says as much about a crash loop as a fresh one, at a fraction of the cost.
 */
final class WebServicePods {

  private WebServicePods() {}

  static List<Pod> list(WebService ws, KubernetesClient client) {
    return client
        .pods()
        .inNamespace(ws.getMetadata().getNamespace())
        .withLabels(Labels.selector(ws, APP, COMPONENT))
        .list(new ListOptionsBuilder().withResourceVersion("0").build())
        .getItems();
  }
}
