package dev.bosun.e2e;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The workload Pods of a namespace by name, each as one incarnation (its UID and its containers'
 * restart count): a Pod replaced or a container restarted between two looks is a new incarnation.
 */
final class WorkloadPods {

  /** One Pod as it was seen: which object it is and how often its containers restarted. */
  record Incarnation(String uid, int restarts) {}

  private WorkloadPods() {}

  /** The Pods by name. */
  static Map<String, Incarnation> of(List<Pod> pods) {
    Map<String, Incarnation> out = new TreeMap<>();
    for (Pod pod : pods) {
      List<ContainerStatus> statuses =
          pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
              ? List.of()
              : pod.getStatus().getContainerStatuses();
      int restarts =
          statuses.stream()
              .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
              .sum();
      out.put(pod.getMetadata().getName(), new Incarnation(pod.getMetadata().getUid(), restarts));
    }
    return out;
  }

  /**
   * The names of the Pods of {@code before} that are gone, replaced or restarted in {@code after}.
   */
  static Set<String> restartedOrReplaced(
      Map<String, Incarnation> before, Map<String, Incarnation> after) {
    Set<String> out = new TreeSet<>();
    before.forEach(
        (name, was) -> {
          if (!was.equals(after.get(name))) {
            out.add(name);
          }
        });
    return out;
  }
}
