package dev.bosun.common.backup;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;

/**
 * The Ready, Progressing and Degraded conditions of every backup kind, one list for each state a
 * backup goes through, so EtcdBackup and MySQLBackup say the same thing in the same situation.
 */
public final class BackupConditions {

  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";

  private static final String NOTHING_FAILED = "no backup attempt failed";

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
    return List.of(
        DesiredCondition.isFalse(
            READY,
            BackupReasons.SCHEDULED,
            first
                .map(t -> "the first backup is taken at " + format(t))
                .orElse("no backup was taken yet")),
        DesiredCondition.isFalse(
            PROGRESSING,
            BackupReasons.IDLE,
            first.map(t -> "next backup " + format(t)).orElse("no backup is due")),
        DesiredCondition.isFalse(DEGRADED, BackupReasons.WORKING, NOTHING_FAILED));
  }

  /**
   * A backup running (or queued, by {@code reason}): Progressing says so; Ready and Degraded keep
   * what they said before the run, since the run has not changed it yet.
   */
  public static List<DesiredCondition> running(
      List<Condition> previous, String reason, String message) {
    return List.of(
        kept(previous, READY).orElse(DesiredCondition.isFalse(READY, reason, message)),
        DesiredCondition.isTrue(PROGRESSING, reason, message),
        kept(previous, DEGRADED)
            .orElse(DesiredCondition.isFalse(DEGRADED, BackupReasons.WORKING, NOTHING_FAILED)));
  }

  /** The last backup (just taken, or earlier) succeeded and nothing runs. */
  public static List<DesiredCondition> succeeded(BackupRecord last, Optional<ZonedDateTime> next) {
    return List.of(
        DesiredCondition.isTrue(READY, BackupReasons.SUCCEEDED, describe(last)),
        DesiredCondition.isFalse(
            PROGRESSING,
            BackupReasons.IDLE,
            next.map(t -> "next backup " + format(t)).orElse("one-shot backup done")),
        DesiredCondition.isFalse(DEGRADED, BackupReasons.WORKING, "the last backup succeeded"));
  }

  /**
   * The backup cannot be taken now, or its last attempt failed: {@code reason} and {@code message}
   * say why (a sentence for a person, never an exception's text).
   */
  public static List<DesiredCondition> failed(String reason, String message) {
    return List.of(
        DesiredCondition.isFalse(READY, reason, message),
        DesiredCondition.isFalse(PROGRESSING, reason, "no backup is running"),
        DesiredCondition.isTrue(DEGRADED, BackupReasons.FAILING, message));
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
