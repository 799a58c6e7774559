package dev.bosun.mysql.execute;

import java.time.Duration;
import java.time.Instant;

/**
 * The status's record of the last rebuild: written before the member is touched, so a restarted
 * operator keeps the member out and resumes, and finished once the copy is done.
 *
 * @param phase {@link #REPLACING_VOLUME}, {@link #COPYING}, {@link #REBUILT} or {@link #FAILED}
 * @param errantTransactions where the member's errant transactions are (to be) exported, or null
 * @param message the failure, or what the rebuild did
 */
public record RebuildRecord(
    String member,
    String source,
    String reason,
    String phase,
    Instant startedAt,
    Instant finishedAt,
    String errantTransactions,
    String message) {

  /**
   * The member's server could not finish crash recovery and its volume is being replaced; the copy
   * follows once it answers.
   */
  public static final String REPLACING_VOLUME = "ReplacingVolume";

  /** The copy runs (or ran when the operator stopped). */
  public static final String COPYING = "Copying";

  /** Rebuilt; the planner attaches it. */
  public static final String REBUILT = "Rebuilt";

  /** Failed: the member stays out until a person asks again. */
  public static final String FAILED = "Failed";

  /** The record once the copy ended. */
  RebuildRecord finished(Instant at, String failure, String summary, boolean exported) {
    return new RebuildRecord(
        member,
        source,
        reason,
        failure == null ? REBUILT : FAILED,
        startedAt,
        at,
        exported ? errantTransactions : null,
        failure == null ? summary : failure);
  }

  /** How long it took, once finished. */
  public Duration took() {
    return finishedAt == null ? null : Duration.between(startedAt, finishedAt);
  }
}
