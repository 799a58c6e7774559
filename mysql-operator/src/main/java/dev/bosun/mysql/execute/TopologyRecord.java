package dev.bosun.mysql.execute;

import dev.bosun.mysql.plan.PromotionIntent;
import java.time.Instant;

/**
 * What the cluster's status remembers about its topology, so a restarted operator (and a returning
 * old primary's errant check) see the same history.
 *
 * @param restoredFrom {@link #RESTORE_PENDING}, {@link #RESTORE_LOADING} (a load started and did
 *     not finish), or the location of the loaded dump
 * @param intent a promotion recorded before it was carried out, or null
 * @param rebuild the last rebuild of a replica, or null
 */
public record TopologyRecord(
    String primary,
    String previousPrimary,
    String promotionGtid,
    Instant lastFailoverTime,
    String restoredFrom,
    PromotionIntent intent,
    RebuildRecord rebuild,
    ContentRecord content) {

  public TopologyRecord {
    content = content == null ? ContentRecord.empty() : content;
  }

  /** A record without content checks. */
  public TopologyRecord(
      String primary,
      String previousPrimary,
      String promotionGtid,
      Instant lastFailoverTime,
      String restoredFrom,
      PromotionIntent intent,
      RebuildRecord rebuild) {
    this(
        primary,
        previousPrimary,
        promotionGtid,
        lastFailoverTime,
        restoredFrom,
        intent,
        rebuild,
        ContentRecord.empty());
  }

  /** A record without a rebuild. */
  public TopologyRecord(
      String primary,
      String previousPrimary,
      String promotionGtid,
      Instant lastFailoverTime,
      String restoredFrom,
      PromotionIntent intent) {
    this(primary, previousPrimary, promotionGtid, lastFailoverTime, restoredFrom, intent, null);
  }

  /** fromBackup has not been loaded yet. */
  public static final String RESTORE_PENDING = "pending";

  /** A load of fromBackup started; if the operator finds this, it did not finish. */
  public static final String RESTORE_LOADING = "loading";

  /** fromBackup was not loaded: the members held data when the restore would have started. */
  public static final String RESTORE_SKIPPED = "not loaded: the members already held data";

  /** A cluster that has never had a primary. */
  public static TopologyRecord empty() {
    return new TopologyRecord(null, null, null, null, null, null);
  }

  /** The record after a promotion: no intent is left open. */
  TopologyRecord promoted(String instance, String previous, String gtid) {
    return new TopologyRecord(
        instance, previous, gtid, lastFailoverTime, restoredFrom, null, rebuild, content);
  }

  /** The record after a failover (the failover time set, no intent left open). */
  TopologyRecord failedOver(String instance, String previous, String gtid, Instant at) {
    return new TopologyRecord(instance, previous, gtid, at, restoredFrom, null, rebuild, content);
  }

  /**
   * The record after a failover that promoted {@code next}'s candidate read-only: it is the
   * primary, and the intent stays open until it takes writes.
   */
  TopologyRecord failedOverReadOnly(PromotionIntent next, Instant at) {
    return new TopologyRecord(
        next.candidate(), next.from(), next.point(), at, restoredFrom, next, rebuild, content);
  }

  /** The same record with a promotion about to be carried out. */
  TopologyRecord withIntent(PromotionIntent next) {
    return new TopologyRecord(
        primary,
        previousPrimary,
        promotionGtid,
        lastFailoverTime,
        restoredFrom,
        next,
        rebuild,
        content);
  }

  /** The same record with another restore state. */
  TopologyRecord withRestoredFrom(String state) {
    return new TopologyRecord(
        primary, previousPrimary, promotionGtid, lastFailoverTime, state, intent, rebuild, content);
  }

  /** The same record with another rebuild. */
  TopologyRecord withRebuild(RebuildRecord next) {
    return new TopologyRecord(
        primary,
        previousPrimary,
        promotionGtid,
        lastFailoverTime,
        restoredFrom,
        intent,
        next,
        content);
  }

  /** The same record with other content checks. */
  TopologyRecord withContent(ContentRecord next) {
    return new TopologyRecord(
        primary,
        previousPrimary,
        promotionGtid,
        lastFailoverTime,
        restoredFrom,
        intent,
        rebuild,
        next);
  }
}
