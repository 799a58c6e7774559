package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether instances can be removed by a scale-down: only when each one being removed can be seen
 * and a remaining member holds every transaction it holds (applied or only received), so no removal
 * takes the last copy of a commit.
 */
public final class ScaleDown {

  private ScaleDown() {}

  /** Why the instances at ordinals {@code >= keep} cannot be removed yet, or null when they can. */
  public static String holdBack(List<InstanceState> observed, int keep, GtidArithmetic gtids) {
    List<InstanceState> remaining =
        observed.stream().filter(i -> i.ordinal() < keep && i.reachable()).toList();
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
      if (remaining.stream().noneMatch(r -> gtids.covers(r.executed(), held))) {
        reasons.add(
            leaving.name()
                + " holds transactions (up to "
                + held
                + ") no remaining member"
                + " has applied");
      }
    }
    return reasons.isEmpty() ? null : "scale-down waits: " + String.join("; ", reasons);
  }
}
