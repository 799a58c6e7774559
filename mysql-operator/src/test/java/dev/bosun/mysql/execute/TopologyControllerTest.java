package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Plan;
import dev.bosun.mysql.plan.RestoreState;
import dev.bosun.mysql.plan.RestoreState.Phase;
import dev.bosun.mysql.plan.Step;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where a restore stands, from the status record and this process's background load. */
class TopologyControllerTest {

  private static TopologyRecord rec(String restoredFrom) {
    return new TopologyRecord("db-0", null, null, null, restoredFrom, null);
  }

  private static Restorer with(Restorer.Progress p) {
    return new Restorer() {
      @Override
      public boolean start(Address primary) {
        return true;
      }

      @Override
      public Progress progress() {
        return p;
      }

      @Override
      public void forget() {}
    };
  }

  @Test
  void anOldPrimaryRebuiltAfterTheFailoverIsNoLongerJudgedAgainstThePromotionPoint() {
    java.time.Instant failover = java.time.Instant.parse("2026-11-27T13:00:00Z");
    TopologyRecord failedOver =
        new TopologyRecord("db-0", "db-1", "0-101-40", failover, null, null);
    assertThat(TopologyController.returningOldPrimary(failedOver)).isEqualTo("db-1");
    RebuildRecord after = rebuild("db-1", "db-2", RebuildRecord.REBUILT, failover, 30);
    assertThat(TopologyController.returningOldPrimary(failedOver.withRebuild(after))).isNull();
    // A rebuild from before that failover, of another member, or one that failed changes nothing.
    RebuildRecord before = rebuild("db-1", "db-2", RebuildRecord.REBUILT, failover, -90);
    assertThat(TopologyController.returningOldPrimary(failedOver.withRebuild(before)))
        .isEqualTo("db-1");
    RebuildRecord other = rebuild("db-2", "db-0", RebuildRecord.REBUILT, failover, 30);
    assertThat(TopologyController.returningOldPrimary(failedOver.withRebuild(other)))
        .isEqualTo("db-1");
    RebuildRecord failed = rebuild("db-1", "db-2", RebuildRecord.FAILED, failover, 30);
    assertThat(TopologyController.returningOldPrimary(failedOver.withRebuild(failed)))
        .isEqualTo("db-1");
  }

  @Test
  void aLoadRecordedAsStartedThatNoWorkerKnowsWasInterrupted() {
    assertThat(TopologyController.restoreState(rec(TopologyRecord.RESTORE_LOADING), with(null)))
        .isEqualTo(new RestoreState(Phase.INTERRUPTED, null));
  }

  @Test
  void theBackgroundLoadDecidesWhileItIsKnown() {
    assertThat(
            TopologyController.restoreState(
                rec(TopologyRecord.RESTORE_LOADING), with(new Restorer.Progress(true, null, null))))
        .isEqualTo(new RestoreState(Phase.RUNNING, null));
    assertThat(
            TopologyController.restoreState(
                rec(TopologyRecord.RESTORE_LOADING),
                with(new Restorer.Progress(false, "s3://b/x.sql", null))))
        .isEqualTo(new RestoreState(Phase.DONE, "s3://b/x.sql"));
    assertThat(
            TopologyController.restoreState(
                rec(TopologyRecord.RESTORE_PENDING),
                with(new Restorer.Progress(false, null, "exit 1"))))
        .isEqualTo(new RestoreState(Phase.FAILED, "exit 1"));
  }

  @Test
  void pendingStartsAndARecordedLocationIsDone() {
    assertThat(TopologyController.restoreState(rec(TopologyRecord.RESTORE_PENDING), with(null)))
        .isEqualTo(new RestoreState(Phase.PENDING, null));
    assertThat(TopologyController.restoreState(rec("s3://b/x.sql"), null))
        .isEqualTo(RestoreState.none());
    assertThat(TopologyController.restoreState(rec(null), null)).isEqualTo(RestoreState.none());
  }

  private static TopologyRecord rebuilding(String phase) {
    return new TopologyRecord(
        "db-0",
        null,
        null,
        null,
        null,
        null,
        new RebuildRecord(
            "db-2", "db-1", "Requested", phase, java.time.Instant.EPOCH, null, null, "boom"));
  }

  private static Rebuilder copying(Rebuilder.Progress p) {
    Rebuilder none = Rebuilder.none(null);
    return new Rebuilder() {
      @Override
      public String unsupported() {
        return null;
      }

      @Override
      public boolean canKeepErrant() {
        return true;
      }

      @Override
      public String location(String artifact) {
        return none.location(artifact);
      }

      @Override
      public boolean start(Job job) {
        return true;
      }

      @Override
      public Progress progress() {
        return p;
      }

      @Override
      public void forget() {}
    };
  }

  @Test
  void aRebuildStandsWhereTheRecordAndThisProcesssCopySayIt() {
    var none = dev.bosun.mysql.plan.RebuildState.none();
    assertThat(TopologyController.rebuildState(rec(null), copying(null))).isEqualTo(none);
    assertThat(TopologyController.rebuildState(rebuilding(RebuildRecord.REBUILT), copying(null)))
        .isEqualTo(none);
    assertThat(
            TopologyController.rebuildState(rebuilding(RebuildRecord.COPYING), copying(null))
                .phase())
        .isEqualTo(dev.bosun.mysql.plan.RebuildState.Phase.INTERRUPTED);
    assertThat(
            TopologyController.rebuildState(
                    rebuilding(RebuildRecord.COPYING),
                    copying(new Rebuilder.Progress(true, "loading", null, false, 0)))
                .phase())
        .isEqualTo(dev.bosun.mysql.plan.RebuildState.Phase.RUNNING);
    assertThat(
            TopologyController.rebuildState(
                rebuilding(RebuildRecord.COPYING),
                copying(new Rebuilder.Progress(false, null, "the load failed", false, 0))))
        .isEqualTo(
            new dev.bosun.mysql.plan.RebuildState(
                dev.bosun.mysql.plan.RebuildState.Phase.FAILED, "db-2", "the load failed"));
    assertThat(TopologyController.rebuildState(rebuilding(RebuildRecord.FAILED), copying(null)))
        .isEqualTo(
            new dev.bosun.mysql.plan.RebuildState(
                dev.bosun.mysql.plan.RebuildState.Phase.ABANDONED, "db-2", "boom"));
  }

  /**
   * A requested rebuild of {@code member} that started {@code startOffset} s after {@code at} and
   * took 30 s.
   */
  private static RebuildRecord rebuild(
      String member, String source, String phase, java.time.Instant at, long startOffset) {
    return new RebuildRecord(
        member,
        source,
        "Requested",
        phase,
        at.plusSeconds(startOffset),
        at.plusSeconds(startOffset + 30),
        null,
        RebuildRecord.FAILED.equals(phase) ? "copy failed" : "");
  }

  @Test
  void whileThePrimaryIsSilentTheRoundThatCanDecideEndsAsTheWindowDoes() {
    java.time.Instant since = java.time.Instant.parse("2026-11-27T13:00:00Z");
    java.time.Duration poll = java.time.Duration.ofSeconds(2);
    java.time.Duration window = java.time.Duration.ofSeconds(10);
    java.time.Duration timeout = java.time.Duration.ofSeconds(3);
    // Answering: the poll interval.
    assertThat(TopologyController.nextRoundAfter(null, since, poll, window, timeout))
        .isEqualTo(poll);
    // Silent for 3 s: the window's end is 7 s away, a silent round lasts 3 s: the poll.
    assertThat(
            TopologyController.nextRoundAfter(since, since.plusSeconds(3), poll, window, timeout))
        .isEqualTo(poll);
    // Silent for 6.2 s: the next round starts in 0.8 s, so it ends at 10 s.
    assertThat(
            TopologyController.nextRoundAfter(since, since.plusMillis(6200), poll, window, timeout))
        .isEqualTo(java.time.Duration.ofMillis(800));
    // Within a timeout of the end: at once (100 ms); over: the round that saw it acted.
    assertThat(
            TopologyController.nextRoundAfter(since, since.plusMillis(8000), poll, window, timeout))
        .isEqualTo(java.time.Duration.ofMillis(100));
    assertThat(
            TopologyController.nextRoundAfter(since, since.plusSeconds(11), poll, window, timeout))
        .isEqualTo(poll);
  }

  @Test
  void aPrimarySilentForMostOfTheWindowIsWaitedForOnlyUntilTheWindowEnds() {
    java.time.Instant since = java.time.Instant.parse("2026-11-27T13:00:00Z");
    java.time.Duration window = java.time.Duration.ofSeconds(10);
    java.time.Duration timeout = java.time.Duration.ofSeconds(3);
    assertThat(TopologyController.primaryWait(null, since, window, timeout)).isEqualTo(timeout);
    assertThat(TopologyController.primaryWait(since, since.plusSeconds(4), window, timeout))
        .isEqualTo(timeout);
    assertThat(TopologyController.primaryWait(since, since.plusMillis(8100), window, timeout))
        .isEqualTo(java.time.Duration.ofMillis(1900));
    // Never shorter than half a second, which a live server needs far less of.
    assertThat(TopologyController.primaryWait(since, since.plusMillis(9800), window, timeout))
        .isEqualTo(TopologyController.SHORTEST_WAIT);
    assertThat(TopologyController.primaryWait(since, since.plusSeconds(30), window, timeout))
        .isEqualTo(TopologyController.SHORTEST_WAIT);
  }

  @Test
  void theWindowCountsFromTheLastAnswerOnlyWhenThatWasTheRoundBefore() {
    java.time.Instant asked = java.time.Instant.parse("2026-11-27T13:00:10Z");
    java.time.Duration horizon = java.time.Duration.ofSeconds(3);
    // The round before ended 2.1 s earlier: the primary has been silent since then.
    assertThat(TopologyController.silentSince(asked.minusMillis(2100), asked, horizon))
        .isEqualTo(asked.minusMillis(2100));
    // Nobody asked for 20 s (an operator busy elsewhere): counted from this round, not then.
    assertThat(TopologyController.silentSince(asked.minusSeconds(20), asked, horizon))
        .isEqualTo(asked);
    // A restarted operator has no answer on record: from this round.
    assertThat(TopologyController.silentSince(null, asked, horizon)).isEqualTo(asked);
  }

  @Test
  void aRoundNamesTheMemberItsStepMadePrimaryOnlyWhenTheStepCompleted() {
    TopologyRecord before = new TopologyRecord("db-0", null, "", null, null, null);
    TopologyRecord after = new TopologyRecord("db-1", null, "", null, null, null);
    Step failover = new Step.Failover("db-0", List.of("db-1", "db-2"));
    assertThat(tick(failover, after, null).promoted()).isEqualTo("db-1");
    // Aborted or re-planned: the record still names the old primary.
    assertThat(tick(failover, before, null).promoted()).isNull();
    // The step failed part way (the intent may be stored, the promotion not done).
    assertThat(tick(failover, after, "db-1: step promote: timed out").promoted()).isNull();
    assertThat(tick(new Step.Switchover("db-0", "db-1", "requested"), after, null).promoted())
        .isEqualTo("db-1");
    assertThat(tick(new Step.Promote("db-0", "Bootstrap"), before, null).promoted())
        .isEqualTo("db-0");
    assertThat(tick(new Step.Steady(), after, null).promoted()).isNull();
    // Promoted read-only, to be compared before writes: not labelled the primary yet.
    assertThat(tick(new Step.Promote("db-0", "FullClusterRestart", false), before, null).promoted())
        .isNull();
    TopologyRecord readOnly =
        after.withIntent(new dev.bosun.mysql.plan.PromotionIntent("db-1", "db-0", ""));
    assertThat(
            tick(new Step.Failover("db-0", List.of("db-1", "db-2"), Set.of("db-1")), readOnly, null)
                .promoted())
        .isNull();
  }

  private static TopologyController.Tick tick(Step step, TopologyRecord record, String error) {
    return new TopologyController.Tick(
        List.of(), new Plan(step, Set.of()), Outcome.quiet(record), error, null);
  }
}
