package dev.bosun.e2e;

import dev.bosun.common.testing.LocalNode;
import dev.bosun.common.testing.chaos.Fault;
import dev.bosun.common.testing.chaos.FaultKind;
import dev.bosun.platform.RealNodePlatform;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The faults every operator's members and Pods meet on the real node: a member's container frozen
 * (cgroup freezer, a hung machine) and thawed, killed (the kubelet restarts it on its volume), its
 * Pod deleted (the StatefulSet makes it again), and the leading operator's container killed (the
 * other replica takes the Lease, or the kubelet restarts it). Network partitions are the loopback
 * labs': the node's Pods share one bridge the tests do not cut.
 */
final class RealNodePodFaults {

  private final RealNodePlatform platform;
  private final String namespace;
  private final String operator;

  /** Containers frozen by a fault still in effect, by fault index: a kill changes the id. */
  private final Map<Integer, String> frozen = new ConcurrentHashMap<>();

  /** Faults of {@code namespace}'s member Pods, with {@code operator}'s chart Pods leading. */
  RealNodePodFaults(RealNodePlatform platform, String namespace, String operator) {
    this.platform = platform;
    this.namespace = namespace;
    this.operator = operator;
  }

  /** The kinds, for {@code members}, with their weights and lengths. */
  static List<FaultKind> menu(List<String> members) {
    return List.of(
        FaultKind.lasting("freeze", 3, members, Duration.ofSeconds(3), Duration.ofSeconds(20)),
        FaultKind.instant("kill", 3, members),
        FaultKind.instant("delete-pod", 1, members),
        FaultKind.instant("kill-operator-leader", 2, List.of("operator")));
  }

  /** Injects {@code f} if it is one of these kinds; false if it is not. */
  boolean inject(Fault f) {
    String t = f.target();
    switch (f.kind()) {
      case "freeze" -> {
        String id = runningContainer(t);
        node().pauseContainer(id);
        frozen.put(f.index(), id);
      }
      case "kill" -> node().killContainer(runningContainer(t));
      case "delete-pod" -> platform.admin().pods().inNamespace(namespace).withName(t).delete();
      case "kill-operator-leader" -> node().killContainer(leaderContainer());
      default -> {
        return false;
      }
    }
    return true;
  }

  /** Heals {@code f} if it is one of these kinds (only a freeze lasts). */
  void heal(Fault f) {
    if ("freeze".equals(f.kind())) {
      thaw(frozen.remove(f.index()));
    }
  }

  /** Thaws every container still frozen. */
  void healAll() {
    for (Integer index : List.copyOf(frozen.keySet())) {
      thaw(frozen.remove(index));
    }
  }

  private void thaw(String container) {
    if (container == null) {
      return;
    }
    try {
      node().resumeContainer(container);
    } catch (IllegalStateException gone) {
      // Its Pod was deleted meanwhile: a frozen task is killed with its container.
      System.err.println("[chaos-node] thaw: " + gone.getMessage());
    }
  }

  /** The id of {@code pod}'s running first container; throws (not injected) if none runs. */
  private String runningContainer(String pod) {
    Pod p = platform.admin().pods().inNamespace(namespace).withName(pod).get();
    return running(p)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    pod + " has no running container (restarting or being made)"));
  }

  /** The container of the operator's Pod that holds the Lease. */
  private String leaderContainer() {
    String holder = platform.lease(operator).getSpec().getHolderIdentity();
    return platform.pods(operator).stream()
        .filter(p -> p.getMetadata().getName().equals(holder))
        .findFirst()
        .flatMap(RealNodePodFaults::running)
        .orElseThrow(
            () ->
                new IllegalStateException("no running " + operator + " operator holds the Lease"));
  }

  private static java.util.Optional<String> running(Pod p) {
    var statuses = p == null ? null : p.getStatus().getContainerStatuses();
    if (statuses == null
        || statuses.isEmpty()
        || statuses.get(0).getState().getRunning() == null
        || statuses.get(0).getContainerID() == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        statuses.get(0).getContainerID().replaceFirst("^containerd://", ""));
  }

  private LocalNode node() {
    return platform.cluster().node();
  }
}
