package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.schedule.CronSchedule;
import java.time.ZonedDateTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackupTimingTest {

  static final ZonedDateTime CREATED = ZonedDateTime.parse("2026-11-22T10:00:30Z");
  static final Optional<CronSchedule> DAILY_2AM = Optional.of(CronSchedule.parse("0 2 * * *"));

  @Test
  void aOneShotBackupIsTakenOnceAndNeverAgain() {
    var first = BackupTiming.decide(Optional.empty(), Optional.empty(), CREATED, CREATED);
    assertThat(first.due()).isTrue();
    assertThat(first.next()).isEmpty();
    var after =
        BackupTiming.decide(Optional.empty(), Optional.of(CREATED), CREATED, CREATED.plusDays(3));
    assertThat(after.due()).isFalse();
    assertThat(after.next()).isEmpty();
  }

  @Test
  void aScheduledBackupWaitsForItsFirstTime() {
    var d = BackupTiming.decide(DAILY_2AM, Optional.empty(), CREATED, CREATED.plusMinutes(1));
    assertThat(d.due()).isFalse();
    assertThat(d.next()).contains(ZonedDateTime.parse("2026-11-23T02:00:00Z"));
  }

  @Test
  void aScheduledBackupIsDueAtItsTimeAndThenWaitsForTheNext() {
    ZonedDateTime now = ZonedDateTime.parse("2026-11-23T02:00:00Z");
    var d = BackupTiming.decide(DAILY_2AM, Optional.empty(), CREATED, now);
    assertThat(d.due()).isTrue();
    assertThat(d.next()).contains(ZonedDateTime.parse("2026-11-24T02:00:00Z"));
  }

  @Test
  void missedTimesCollapseIntoOneSnapshot() {
    ZonedDateTime last = ZonedDateTime.parse("2026-11-23T02:00:00Z");
    ZonedDateTime now = ZonedDateTime.parse("2026-11-26T09:00:00Z");
    var d = BackupTiming.decide(DAILY_2AM, Optional.of(last), CREATED, now);
    assertThat(d.due()).isTrue();
    assertThat(d.next()).contains(ZonedDateTime.parse("2026-11-27T02:00:00Z"));
    var after = BackupTiming.decide(DAILY_2AM, Optional.of(now), CREATED, now.plusSeconds(5));
    assertThat(after.due()).isFalse();
  }

  @Test
  void noScheduleIsAOneShotBackup() {
    var s = BackupTiming.schedule(null);
    assertThat(s.schedule()).isEmpty();
    assertThat(s.invalidSpec()).isEmpty();
  }

  @Test
  void aCronScheduleIsParsed() {
    var s = BackupTiming.schedule("0 2 * * *");
    assertThat(s.schedule()).map(CronSchedule::toString).hasValue("0 2 * * *");
    assertThat(s.invalidSpec()).isEmpty();
  }

  @Test
  void aScheduleThatDoesNotParseIsAnInvalidSpecSentenceNamingTheField() {
    var s = BackupTiming.schedule("61 * * * *");
    assertThat(s.schedule()).isEmpty();
    assertThat(s.invalidSpec())
        .hasValueSatisfying(
            m -> assertThat(m).startsWith("invalid spec: schedule: invalid minute field '61'"));
    assertThat(BackupTiming.schedule(" ").invalidSpec())
        .hasValue("invalid spec: schedule: the schedule is empty");
  }

  @Test
  void theScheduleProblemIsTheInvalidSpecSentenceWithoutItsPrefix() {
    assertThat(BackupTiming.scheduleProblem("61 * * * *"))
        .hasValueSatisfying(m -> assertThat(m).startsWith("schedule: invalid minute field '61'"));
    assertThat(BackupTiming.scheduleProblem("@daily")).isEmpty();
    assertThat(BackupTiming.scheduleProblem(null)).isEmpty();
  }
}
