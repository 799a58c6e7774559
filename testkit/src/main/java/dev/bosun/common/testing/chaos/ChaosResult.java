package dev.bosun.common.testing.chaos;

import java.time.Duration;

/**
 * What the checker found after one schedule: faults injected, writes acknowledged and lost, the
 * operator's safety samples that failed (two writable MySQL members, an etcd read back in time),
 * the clients' longest time without an acknowledgement, and how long the cluster took to be Ready
 * after the last heal.
 */
public record ChaosResult(
    long seed,
    int faults,
    int injected,
    long acknowledged,
    long lost,
    long unsafeSamples,
    Duration longestUnavailability,
    Duration readyAfterHeal) {

  /** True when nothing acknowledged was lost and no sample was unsafe. */
  public boolean safe() {
    return lost == 0 && unsafeSamples == 0;
  }
}
