package dev.bosun.etcd.maintenance;

import java.util.Map;

/**
 * Whether a NOSPACE recovery got the database back under its quota. After compaction and
 * defragmentation a member's database holds only its live data; when that alone still fills the
 * quota, disarming the alarm would only let the next writes raise it again, and the operator would
 * compact, defragment (pausing every member) and disarm in a loop. It stops instead and says so.
 */
public final class NoSpaceQuota {

  /** etcd's own quota when {@code --quota-backend-bytes} is not set. */
  public static final long ETCD_DEFAULT = 2L * 1024 * 1024 * 1024;

  /** Below this share of the quota the alarm is disarmed; at or above it, recovery stops. */
  static final double HEADROOM = 0.9;

  private NoSpaceQuota() {}

  /** The quota in force: the spec's, or etcd's default. */
  public static long of(Long quotaBackendBytes) {
    return quotaBackendBytes == null || quotaBackendBytes <= 0 ? ETCD_DEFAULT : quotaBackendBytes;
  }

  /** True when every member's database after defragmentation is under 90 % of the quota. */
  public static boolean fits(Map<String, Long> sizesAfter, long quota) {
    return sizesAfter.values().stream().allMatch(size -> size < quota * HEADROOM);
  }

  /** What the operator says when it stops, naming the largest member. */
  public static String stopped(Map<String, Long> sizesAfter, long quota) {
    var largest = sizesAfter.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow();
    return "NOSPACE recovery stopped: after compaction and defragmentation the database of "
        + largest.getKey()
        + " still holds "
        + largest.getValue()
        + " bytes of live data, "
        + Math.round(100.0 * largest.getValue() / quota)
        + " % of its "
        + quota
        + "-byte quota, so the alarm stays raised and writes keep failing. Delete keys (deletes"
        + " and reads still work) or raise spec.storage.quotaBackendBytes; the operator tries again"
        + " after the next change to the spec";
  }
}
