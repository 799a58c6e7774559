package dev.bosun.web.reconciler;

import dev.bosun.web.status.StartProblems;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.List;

/**
 * The Warning Events about a WebService's Pods, read only when its Pods were read (a stalled
 * rollout) and their status does not say why some are not ready: a ConfigMap or Secret volume that
 * cannot be mounted shows only in the kubelet's FailedMount Events, the Pod itself just waits in
 * ContainerCreating. Served from the API server's watch cache, like the Pods.
 */
final class PodEvents {

  private PodEvents() {}

  static List<Event> explaining(WebService ws, Collection<Pod> pods, KubernetesClient client) {
    if (!StartProblems.unexplained(pods)) {
      return List.of();
    }
    return client
        .v1()
        .events()
        .inNamespace(ws.getMetadata().getNamespace())
        .list(
            new ListOptionsBuilder()
                .withFieldSelector("involvedObject.kind=Pod,type=Warning")
                .withResourceVersion("0")
                .build())
        .getItems()
        .stream()
        .filter(e -> StartProblems.POD_EVENT_REASONS.contains(e.getReason()))
        .toList();
  }
}
