package dev.bosun.common.backup;

import dev.bosun.common.status.ConditionTable;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;

/**
 * The Ready, Progressing and Degraded conditions of every backup kind, one list for each state a
 * backup goes through, so EtcdBackup and MySQLBackup say the same thing in the same situation: a
 * {@link ConditionTable} with one rule per condition.
 */
public final class BackupConditions {

  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";

  private static final String NOTHING_FAILED = "no backup attempt failed";

  /** The states a backup goes through, as its conditions tell them. */
  private enum Phase {
    WAITING_FOR_FIRST,
    RUNNING,
    SUCCEEDED,
    FAILED
  }

  /**
   * What the rules look at: the phase, the last backup and the next time (waiting, succeeded), the
   * stored conditions (running) and the reason and message of a run or a failure.
   */
  private record Facts(
      Phase phase,
      BackupRecord last,
      Optional<ZonedDateTime> next,
      List<Condition> previous,
      String reason,
      String message) {}

  private static final ConditionTable<Facts> TABLE =
      ConditionTable.<Facts>builder()
          .row(READY, BackupConditions::ready)
          .row(PROGRESSING, BackupConditions::progressing)
          .row(DEGRADED, BackupConditions::degraded)
          .build();

  private BackupConditions() {}

  /**
   * Between backups: succeeded when one was taken ({@code last}), else waiting for the first.
   *
   * @param next when the next backup is due; empty for a one-shot backup
   */
  public static List<DesiredCondition> idle(BackupRecord last, Optional<ZonedDateTime> next) {
    return last == null ? waitingForFirst(next) : succeeded(last, next);
  }

  /** A scheduled backup before its first run: nothing taken, nothing failed. */
  public static List<DesiredCondition> waitingForFirst(Optional<ZonedDateTime> first) {
    return TABLE.decide(new Facts(Phase.WAITING_FOR_FIRST, null, first, null, null, null));
  }

  /**
   * A backup running (or queued, by {@code reason}): Progressing says so; Ready and Degraded keep
   * what they said before the run, since the run has not changed it yet.
   */
  public static List<DesiredCondition> running(
      List<Condition> previous, String reason, String message) {
    return TABLE.decide(
        new Facts(Phase.RUNNING, null, Optional.empty(), previous, reason, message));
  }

  /** The last backup (just taken, or earlier) succeeded and nothing runs. */
  public static List<DesiredCondition> succeeded(BackupRecord last, Optional<ZonedDateTime> next) {
    return TABLE.decide(new Facts(Phase.SUCCEEDED, last, next, null, null, null));
  }

  /**
   * The backup cannot be taken now, or its last attempt failed: {@code reason} and {@code message}
   * say why (a sentence for a person, never an exception's text).
   */
  public static List<DesiredCondition> failed(String reason, String message) {
    return TABLE.decide(new Facts(Phase.FAILED, null, Optional.empty(), null, reason, message));
  }

  private static DesiredCondition ready(Facts f) {
    return switch (f.phase()) {
      case WAITING_FOR_FIRST ->
          DesiredCondition.isFalse(
              READY,
              BackupReasons.SCHEDULED,
              f.next()
                  .map(t -> "the first backup is taken at " + format(t))
                  .orElse("no backup was taken yet"));
      case RUNNING ->
          kept(f.previous(), READY)
              .orElse(DesiredCondition.isFalse(READY, f.reason(), f.message()));
      case SUCCEEDED -> DesiredCondition.isTrue(READY, BackupReasons.SUCCEEDED, describe(f.last()));
      case FAILED -> DesiredCondition.isFalse(READY, f.reason(), f.message());
    };
  }

  private static DesiredCondition progressing(Facts f) {
    return switch (f.phase()) {
      case WAITING_FOR_FIRST ->
          DesiredCondition.isFalse(
              PROGRESSING,
              BackupReasons.IDLE,
              f.next().map(t -> "next backup " + format(t)).orElse("no backup is due"));
      case RUNNING -> DesiredCondition.isTrue(PROGRESSING, f.reason(), f.message());
      case SUCCEEDED ->
          DesiredCondition.isFalse(
              PROGRESSING,
              BackupReasons.IDLE,
              f.next().map(t -> "next backup " + format(t)).orElse("one-shot backup done"));
      case FAILED -> DesiredCondition.isFalse(PROGRESSING, f.reason(), "no backup is running");
    };
  }

  private static DesiredCondition degraded(Facts f) {
    return switch (f.phase()) {
      case WAITING_FOR_FIRST ->
          DesiredCondition.isFalse(DEGRADED, BackupReasons.WORKING, NOTHING_FAILED);
      case RUNNING ->
          kept(f.previous(), DEGRADED)
              .orElse(DesiredCondition.isFalse(DEGRADED, BackupReasons.WORKING, NOTHING_FAILED));
      case SUCCEEDED ->
          DesiredCondition.isFalse(DEGRADED, BackupReasons.WORKING, "the last backup succeeded");
      case FAILED -> DesiredCondition.isTrue(DEGRADED, BackupReasons.FAILING, f.message());
    };
  }

  private static Optional<DesiredCondition> kept(List<Condition> previous, String type) {
    return Conditions.find(previous, type)
        .filter(c -> c.getReason() != null && c.getStatus() != null)
        .map(c -> new DesiredCondition(type, c.getStatus(), c.getReason(), c.getMessage()));
  }

  private static String describe(BackupRecord last) {
    StringBuilder m = new StringBuilder("last backup taken at ").append(format(last.time()));
    if (last.size() != null) {
      m.append(", ").append(last.size()).append(" bytes");
    }
    if (last.location() != null) {
      m.append(", stored at ").append(last.location());
    }
    return m.toString();
  }

  /**
   * An RFC 3339 UTC time, the same however the time was read back from the API server, so a message
   * does not change (and cause a write) only because its zone is spelled differently.
   */
  private static String format(ZonedDateTime time) {
    return time == null ? "an unknown time" : DateTimeFormatter.ISO_INSTANT.format(time);
  }
}
