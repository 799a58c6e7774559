package dev.bosun.common.testing.chaos;

import java.time.Duration;
import java.util.Locale;

/**
 * One fault of a schedule: its kind and target, when it starts after the schedule's start and how
 * long it lasts (zero for an instantaneous one).
 */
public record Fault(int index, String kind, String target, Duration at, Duration length) {

  /** When it is healed, after the schedule's start (its start for an instantaneous fault). */
  public Duration healAt() {
    return at.plus(length);
  }

  /** True when it has nothing to heal. */
  public boolean instantaneous() {
    return length.isZero();
  }

  /** One line for a log: {@code "#3 t+12.4s freeze db-1 for 5.2s"}. */
  public String describe() {
    String line = "#" + index + " t+" + seconds(at) + "s " + kind + " " + target;
    return instantaneous() ? line : line + " for " + seconds(length) + "s";
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
  }
}
