package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether instances can be removed by a scale-down: only when each one being removed can be seen
 * and a remaining replica (the primary, when none remains) holds every transaction it holds
 * (applied or only received), so no removal leaves a commit on one member alone.
 */
public final class ScaleDown {

  private ScaleDown() {}

  /** Why the instances at ordinals {@code >= keep} cannot be removed yet, or null when they can. */
  public static String holdBack(List<InstanceState> observed, int keep, GtidArithmetic gtids) {
    List<InstanceState> remaining =
        observed.stream().filter(i -> i.ordinal() < keep && i.reachable()).toList();
    // A commit the leaving replica acknowledged and that only the primary also holds is one failure
    // from lost once the replica goes (chaos seed 371178: the primary died right after, and the
    // lagging replica was promoted without it). While replicas remain, one of them must hold it;
    // a cluster scaled to its primary alone keeps its commits there by choice.
    List<InstanceState> replicas = remaining.stream().filter(r -> !r.writable()).toList();
    List<InstanceState> holders = replicas.isEmpty() ? remaining : replicas;
    List<String> reasons = new ArrayList<>();
    for (InstanceState leaving : observed) {
      if (leaving.ordinal() < keep) {
        continue;
      }
      if (!leaving.reachable()) {
        reasons.add(leaving.name() + " cannot be observed, so what it holds cannot be checked");
        continue;
      }
      String held = leaving.held(gtids);
      if (holders.stream().noneMatch(r -> gtids.covers(r.executed(), held))) {
        reasons.add(
            leaving.name()
                + " holds transactions (up to "
                + held
                + ") no remaining "
                + (replicas.isEmpty() ? "member" : "replica")
                + " has applied");
      }
    }
    return reasons.isEmpty() ? null : "scale-down waits: " + String.join("; ", reasons);
  }
}
