package dev.bosun.mysql.workload;

import java.time.Instant;

/**
 * What the cluster's status remembers about its topology, so a restarted operator (and a returning
 * old primary's errant check) see the same history.
 */
public record TopologyRecord(
    String primary,
    String previousPrimary,
    String promotionGtid,
    Instant lastFailoverTime,
    String restoredFrom) {

  /** A cluster that has never had a primary. */
  public static TopologyRecord empty() {
    return new TopologyRecord(null, null, null, null, null);
  }

  TopologyRecord promoted(String instance, String previous, String gtid) {
    return new TopologyRecord(instance, previous, gtid, lastFailoverTime, restoredFrom);
  }
}
