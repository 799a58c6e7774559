package dev.bosun.common.backup;

import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.common.status.HumanMessages;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * When the next backup of any backup kind is due: a one-shot backup once, a scheduled one at each
 * cron time after the last backup (or after the backup was created). Missed times while the
 * operator was down collapse into one backup, never a burst.
 */
public final class BackupTiming {

  private BackupTiming() {}

  /**
   * The decision for now.
   *
   * @param due whether a backup should be taken now
   * @param next when to look again (empty: never, a one-shot backup that is done)
   */
  public record Decision(boolean due, Optional<ZonedDateTime> next) {}

  /**
   * A backup's {@code spec.schedule}, read: the schedule (empty for a one-shot backup) or, when the
   * cron text does not parse, the InvalidSpec message that names what is wrong.
   */
  public record Schedule(Optional<CronSchedule> schedule, Optional<String> invalidSpec) {}

  /** Reads {@code spec.schedule}; null is a one-shot backup. */
  public static Schedule schedule(String cron) {
    if (cron == null) {
      return new Schedule(Optional.empty(), Optional.empty());
    }
    try {
      return new Schedule(Optional.of(CronSchedule.parse(cron)), Optional.empty());
    } catch (IllegalArgumentException e) {
      return new Schedule(Optional.empty(), Optional.of("invalid spec: " + problem(e)));
    }
  }

  /** What is wrong with {@code spec.schedule} (null: a one-shot backup), naming the field. */
  public static Optional<String> scheduleProblem(String cron) {
    if (cron == null) {
      return Optional.empty();
    }
    try {
      CronSchedule.parse(cron);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(problem(e));
    }
  }

  private static String problem(IllegalArgumentException e) {
    return "schedule: " + HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH);
  }

  public static Decision decide(
      Optional<CronSchedule> schedule,
      Optional<ZonedDateTime> lastBackup,
      ZonedDateTime created,
      ZonedDateTime now) {
    if (schedule.isEmpty()) {
      return new Decision(lastBackup.isEmpty(), Optional.empty());
    }
    ZonedDateTime dueAt = schedule.get().next(lastBackup.orElse(created));
    if (!dueAt.isAfter(now)) {
      return new Decision(true, Optional.of(schedule.get().next(now)));
    }
    return new Decision(false, Optional.of(dueAt));
  }
}
