package dev.bosun.common.testing.chaos;

import java.time.Duration;
import java.util.List;

/**
 * One kind of fault on an operator's menu: how often it is drawn against the others, the targets it
 * may hit (member names, subsets written as the nemesis reads them, or one target for a
 * cluster-wide fault) and how long it lasts before it is healed. A kind whose longest duration is
 * zero is instantaneous (a kill, an operator restart, a switchover request): it is never healed.
 */
public record FaultKind(
    String name, int weight, List<String> targets, Duration shortest, Duration longest) {

  public FaultKind {
    if (name.isBlank() || weight < 1 || targets.isEmpty()) {
      throw new IllegalArgumentException(
          "a fault kind needs a name, a weight of at least 1 and a target: " + name);
    }
    if (shortest.isNegative() || longest.compareTo(shortest) < 0) {
      throw new IllegalArgumentException(name + ": 0 <= shortest <= longest expected");
    }
    targets = List.copyOf(targets);
  }

  /** A fault that lasts between {@code shortest} and {@code longest}, then is healed. */
  public static FaultKind lasting(
      String name, int weight, List<String> targets, Duration shortest, Duration longest) {
    return new FaultKind(name, weight, targets, shortest, longest);
  }

  /** A fault that happens at one instant and is not healed. */
  public static FaultKind instant(String name, int weight, List<String> targets) {
    return new FaultKind(name, weight, targets, Duration.ZERO, Duration.ZERO);
  }

  /** True when the fault is not healed (it has no duration). */
  public boolean instantaneous() {
    return longest.isZero();
  }
}
