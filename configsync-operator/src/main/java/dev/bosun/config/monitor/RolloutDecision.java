package dev.bosun.config.monitor;

import java.time.Duration;
import java.time.Instant;

/**
 * What a ConfigMonitor does about the hash of its watched data, decided from its persisted status
 * alone: so an operator restart or a leader change, which only re-reads the same status, can never
 * roll anything by itself.
 */
public sealed interface RolloutDecision {

  /** First look (new or edited monitor): record the hash, roll nothing. */
  record Baseline(String hash) implements RolloutDecision {}

  /** The workloads already run with this hash. */
  record Unchanged() implements RolloutDecision {}

  /** A new change: remember it and wait for the debounce window to pass without another. */
  record StartWaiting(String hash, Instant since, Duration debounce) implements RolloutDecision {}

  /** The change is still settling: look again later. */
  record KeepWaiting(Duration remaining) implements RolloutDecision {}

  /** Roll the workloads to this hash now. */
  record Roll(String hash) implements RolloutDecision {}

  /**
   * The decision.
   *
   * @param current hash of the watched data now
   * @param applied hash the workloads run with (status), null before the first look
   * @param specChanged the monitor's spec changed since its status was written
   * @param pending hash of a change waiting for the debounce window, or null
   * @param pendingSince when that change was first seen
   * @param debounce quiet time required after the last change
   * @param now the time of the decision
   */
  static RolloutDecision decide(
      String current,
      String applied,
      boolean specChanged,
      String pending,
      Instant pendingSince,
      Duration debounce,
      Instant now) {
    if (applied == null || specChanged) {
      return new Baseline(current);
    }
    if (current.equals(applied)) {
      return new Unchanged();
    }
    if (!current.equals(pending) || pendingSince == null) {
      return debounce.isZero() ? new Roll(current) : new StartWaiting(current, now, debounce);
    }
    Duration waited = Duration.between(pendingSince, now);
    return waited.compareTo(debounce) >= 0
        ? new Roll(current)
        : new KeepWaiting(debounce.minus(waited));
  }
}
