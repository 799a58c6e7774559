package dev.bosun.mysql.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The next move of a rolling upgrade under the StatefulSet's OnDelete strategy: replicas first
 * (highest ordinal first), one at a time and only while every member is healthy; the primary last,
 * after a switchover to an upgraded replica. A pure function of the StatefulSet, its pods and the
 * topology.
 */
final class RollingUpgrade {

  private RollingUpgrade() {}

  /** What to do: nothing, delete one pod, or hand the primary over first. */
  record Move(String deletePod, String switchoverTo, String message) {
    static final Move NONE = new Move(null, null, null);
  }

  static final String REVISION = "controller-revision-hash";

  static Move next(
      StatefulSet sts,
      List<Pod> pods,
      String primary,
      boolean allHealthy,
      List<String> healthyReplicas) {
    if (sts == null || sts.getStatus() == null || sts.getStatus().getUpdateRevision() == null) {
      return Move.NONE;
    }
    if (!Objects.equals(
        sts.getStatus().getObservedGeneration(), sts.getMetadata().getGeneration())) {
      return Move.NONE;
    }
    // One pod at a time: nothing moves while a pod is going away or not ready yet.
    boolean settling = pods.stream().anyMatch(RollingUpgrade::settling);
    if (settling) {
      return Move.NONE;
    }
    String target = sts.getStatus().getUpdateRevision();
    List<Pod> outdated =
        pods.stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .filter(p -> !target.equals(revision(p)))
            .toList();
    if (outdated.isEmpty() || !allHealthy || primary == null) {
      return Move.NONE;
    }
    Optional<Pod> replica =
        outdated.stream()
            .filter(p -> !p.getMetadata().getName().equals(primary))
            .max(Comparator.comparingInt(p -> StatusRecords.ordinal(p.getMetadata().getName())));
    if (replica.isPresent()) {
      String name = replica.get().getMetadata().getName();
      return new Move(name, null, "upgrading replica " + name);
    }
    return primaryMove(pods, primary, healthyReplicas, target);
  }

  /** Only the primary is left on the old revision: hand over to an upgraded healthy replica. */
  private static Move primaryMove(
      List<Pod> pods, String primary, List<String> healthyReplicas, String target) {
    Optional<String> successor =
        healthyReplicas.stream()
            .filter(
                r ->
                    pods.stream()
                        .anyMatch(
                            p -> p.getMetadata().getName().equals(r) && target.equals(revision(p))))
            .min(Comparator.comparingInt(StatusRecords::ordinal));
    if (successor.isPresent()) {
      return new Move(
          null,
          successor.get(),
          "switching over to " + successor.get() + " before upgrading the primary " + primary);
    }
    if (healthyReplicas.isEmpty()) {
      return new Move(
          primary, null, "upgrading the only instance " + primary + " (writes pause meanwhile)");
    }
    return Move.NONE;
  }

  /** A Pod going away or not Ready yet. */
  private static boolean settling(Pod p) {
    return p.getMetadata().getDeletionTimestamp() != null
        || p.getStatus() == null
        || p.getStatus().getConditions() == null
        || p.getStatus().getConditions().stream()
            .noneMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static String revision(Pod p) {
    return p.getMetadata().getLabels() == null ? null : p.getMetadata().getLabels().get(REVISION);
  }
}
