package dev.bosun.mysql.reconciler;

import dev.bosun.mysql.execute.TopologyController;
import java.util.function.IntFunction;

/**
 * How many instances the StatefulSet may have after a health round, and why a change the spec asks
 * for waits. Scale changes wait while the primary is missing (removing a pod then could remove the
 * only copy of an acknowledged commit), and a scale-down waits while a leaving instance holds
 * transactions the remaining ones lack.
 */
final class ScaleGuard {

  /** The StatefulSet's replicas, and what the status says about a deferred change (or null). */
  record Decision(int statefulSetReplicas, String deferred) {}

  private ScaleGuard() {}

  /**
   * @param specReplicas what the spec asks for
   * @param primaryOrdinal the recorded primary's ordinal, -1 without one (it is never removed)
   * @param primaryMissing a primary is recorded but does not take writes
   * @param liveReplicas the StatefulSet's replicas now, null when it does not exist yet
   * @param holdBack why instances from an ordinal on cannot leave yet, null when they can
   */
  static Decision decide(
      int specReplicas,
      int primaryOrdinal,
      boolean primaryMissing,
      Integer liveReplicas,
      IntFunction<String> holdBack) {
    int wanted = Math.max(specReplicas, primaryOrdinal + 1);
    if (liveReplicas == null) {
      return new Decision(wanted, null);
    }
    if (primaryMissing && wanted != liveReplicas) {
      return new Decision(
          liveReplicas,
          "spec.replicas is "
              + specReplicas
              + " but the change waits until the cluster has a primary again");
    }
    String heldBack = wanted < liveReplicas ? holdBack.apply(wanted) : null;
    return heldBack != null ? new Decision(liveReplicas, heldBack) : new Decision(wanted, null);
  }

  /** Whether the cluster has a recorded primary that does not take writes right now. */
  static boolean primaryUnavailable(TopologyController.Tick tick) {
    String primary = tick.record().primary();
    return primary != null
        && tick.observed().stream().noneMatch(i -> i.name().equals(primary) && i.writable());
  }
}
