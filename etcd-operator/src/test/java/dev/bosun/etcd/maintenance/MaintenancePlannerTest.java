package dev.bosun.etcd.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.etcd.client.EtcdAlarm;
import dev.bosun.etcd.plan.ObservedMember;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MaintenancePlannerTest {

  static final ZonedDateTime CREATED = ZonedDateTime.parse("2026-11-20T00:00:00Z");
  static final ZonedDateTime NOW = ZonedDateTime.parse("2026-11-23T03:00:30Z");
  static final Optional<CronSchedule> NIGHTLY = Optional.of(CronSchedule.parse("0 3 * * *"));
  static final EtcdAlarm NOSPACE = new EtcdAlarm(101, "c-1", EtcdAlarm.NOSPACE);

  /** Three healthy voters; c-1 leads. */
  static List<ObservedMember> members(boolean allHealthy) {
    List<ObservedMember> m = new ArrayList<>();
    m.add(new ObservedMember("c-0", 100, false, true, false, 10));
    m.add(new ObservedMember("c-1", 101, false, true, true, 10));
    m.add(new ObservedMember("c-2", 102, false, allHealthy, false, 10));
    return m;
  }

  static MaintenanceStep plan(
      boolean converged,
      boolean healthy,
      List<EtcdAlarm> alarms,
      boolean recover,
      Optional<CronSchedule> schedule,
      DefragRound round) {
    return MaintenancePlanner.plan(
        new MaintenancePlanner.Input(
            "c",
            converged,
            members(healthy),
            alarms,
            recover,
            false,
            schedule,
            round,
            CREATED,
            NOW));
  }

  @Test
  void withoutScheduleOrAlarmNothingIsDone() {
    assertThat(plan(true, true, List.of(), false, Optional.empty(), DefragRound.none()))
        .isEqualTo(new MaintenanceStep.None());
  }

  @Test
  void aDueRoundDefragmentsFollowersFirstOneAtATimeAndTheLeaderLast() {
    assertThat(plan(true, true, List.of(), false, NIGHTLY, DefragRound.none()))
        .isEqualTo(new MaintenanceStep.Defragment("c-0", false));
    DefragRound started = new DefragRound(NOW, null, List.of("c-0"));
    assertThat(plan(true, true, List.of(), false, NIGHTLY, started))
        .isEqualTo(new MaintenanceStep.Defragment("c-2", false));
    DefragRound followersDone = new DefragRound(NOW, null, List.of("c-0", "c-2"));
    assertThat(plan(true, true, List.of(), false, NIGHTLY, followersDone))
        .isEqualTo(new MaintenanceStep.Defragment("c-1", true));
  }

  @Test
  void aFinishedRoundWaitsForTheNextScheduleTime() {
    DefragRound done =
        new DefragRound(NOW.minusSeconds(20), NOW.minusSeconds(10), List.of("c-0", "c-2", "c-1"));
    assertThat(plan(true, true, List.of(), false, NIGHTLY, done))
        .isEqualTo(new MaintenanceStep.None());
    assertThat(MaintenancePlanner.next(NIGHTLY, done, CREATED))
        .hasValue(ZonedDateTime.parse("2026-11-24T03:00:00Z"));
    // Never ran: due at the first schedule time after the cluster was created.
    assertThat(MaintenancePlanner.next(NIGHTLY, DefragRound.none(), CREATED))
        .hasValue(ZonedDateTime.parse("2026-11-20T03:00:00Z"));
  }

  @Test
  void defragmentationWaitsWhileAMemberIsUnhealthyOrTheMembershipChanges() {
    assertThat(plan(true, false, List.of(), false, NIGHTLY, DefragRound.none()))
        .isInstanceOf(MaintenanceStep.WaitForHealth.class);
    DefragRound started = new DefragRound(NOW, null, List.of("c-0"));
    assertThat(plan(false, true, List.of(), false, NIGHTLY, started))
        .isInstanceOf(MaintenanceStep.WaitForHealth.class);
  }

  @Test
  void noSpaceIsOnlyReportedWithoutTheOptIn() {
    assertThat(plan(true, true, List.of(NOSPACE), false, NIGHTLY, DefragRound.none()))
        .isEqualTo(new MaintenanceStep.ReportNoSpace(List.of(NOSPACE)));
  }

  @Test
  void noSpaceIsRecoveredWhenOptedInFollowersFirstLeaderLast() {
    assertThat(plan(true, true, List.of(NOSPACE), true, Optional.empty(), DefragRound.none()))
        .isEqualTo(
            new MaintenanceStep.RecoverNoSpace(
                "c-1", List.of("c-0", "c-2", "c-1"), List.of(NOSPACE)));
    assertThat(plan(true, false, List.of(NOSPACE), true, Optional.empty(), DefragRound.none()))
        .isInstanceOf(MaintenanceStep.WaitForHealth.class);
  }

  @Test
  void aNoSpaceRecoveryThatStoppedShortOfTheQuotaIsNotRepeated() {
    // Compacting and defragmenting again would pause every member and change nothing.
    MaintenanceStep step =
        MaintenancePlanner.plan(
            new MaintenancePlanner.Input(
                "c",
                true,
                members(true),
                List.of(NOSPACE),
                true,
                true,
                NIGHTLY,
                DefragRound.none(),
                CREATED,
                NOW));
    assertThat(step).isEqualTo(new MaintenanceStep.NoSpaceRecoveryStopped(List.of(NOSPACE)));
  }
}
