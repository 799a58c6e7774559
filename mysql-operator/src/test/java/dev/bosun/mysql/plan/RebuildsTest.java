package dev.bosun.mysql.plan;

import static dev.bosun.mysql.plan.TopologyPlannerTest.addr;
import static dev.bosun.mysql.plan.TopologyPlannerTest.down;
import static dev.bosun.mysql.plan.TopologyPlannerTest.fenced;
import static dev.bosun.mysql.plan.TopologyPlannerTest.primary;
import static dev.bosun.mysql.plan.TopologyPlannerTest.replica;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.client.MariaDbGtids;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a replica is rebuilt, from where, and when it is refused. */
class RebuildsTest {

  private final TopologyPlanner maria = new TopologyPlanner(new MariaDbGtids());

  /** A replica with a local write (0-3-10) beyond what it received from db-0 (0-1-9). */
  static InstanceState errantReplica(String name) {
    Address a = addr("db-0");
    return Instance.replica(name, TopologyPlannerTest.ord(name), "0-3-10", a.host(), a.port())
        .replicated("0-1-9")
        .received("0-1-10")
        .ioRunning(false)
        .sqlRunning(false)
        .lagSeconds(null)
        .lastSqlErrno(1950)
        .build();
  }

  /**
   * A replica whose applier stopped on a duplicate key (its data differs from the primary's), its
   * receiver already stopped (the planner detaches a member it keeps out first).
   */
  static InstanceState duplicateKey(String name, String gtid) {
    Address a = addr("db-0");
    return Instance.replica(name, TopologyPlannerTest.ord(name), gtid, a.host(), a.port())
        .ioRunning(false)
        .sqlRunning(false)
        .lagSeconds(null)
        .lastSqlErrno(1062)
        .build();
  }

  /** A replica of db-0 whose applier stopped on {@code sqlErrno}, still receiving or not. */
  static Instance stoppedApplier(String name, String gtid, int sqlErrno, boolean receiving) {
    Address a = addr("db-0");
    return Instance.replica(name, TopologyPlannerTest.ord(name), gtid, a.host(), a.port())
        .ioRunning(receiving)
        .sqlRunning(false)
        .lagSeconds(null)
        .lastSqlErrno(sqlErrno);
  }

  private static TopologyPlannerTest.In cluster(InstanceState... others) {
    TopologyPlannerTest.In in = new TopologyPlannerTest.In().with(primary("db-0", "0-1-12"));
    in.with(others);
    in.primary = "db-0";
    return in;
  }

  private static RebuildPolicy automatic() {
    return new RebuildPolicy(true, null, true, null, RebuildState.none());
  }

  /** A rebuild of {@code member} whose copy the operator did not see finish. */
  private static RebuildPolicy interrupted(String member) {
    return new RebuildPolicy(
        false, null, true, null, new RebuildState(RebuildState.Phase.INTERRUPTED, member, null));
  }

  private static RebuildPolicy requested(String member) {
    return new RebuildPolicy(false, member, true, null, RebuildState.none());
  }

  @Test
  void manualModeKeepsTodaysBehaviourTheErrantReplicaIsReportedOnly() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), errantReplica("db-2"));
    Plan plan = maria.plan(in.build());
    assertThat(plan.errant()).containsExactly("db-2");
    assertThat(plan.step()).isEqualTo(new Step.Steady());
  }

  @Test
  void automaticRebuildsAnErrantReplicaFromTheHealthyOneAndExportsBeyondWhatItReceived() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), errantReplica("db-2"));
    in.rebuild = automatic();
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "ErrantTransactions", "0-1-9"));
  }

  @Test
  void automaticRebuildsAReplicaWhoseApplierStoppedOnADataError() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), duplicateKey("db-2", "0-1-11"));
    in.rebuild = automatic();
    Plan plan = maria.plan(in.build());
    assertThat(plan.step()).isEqualTo(new Step.Rebuild("db-2", "db-1", "ReplicationBroken", null));
  }

  @Test
  void manualModeKeepsAReplicaWhoseApplierStoppedOutAndStopsItsReceiver() {
    // Attaching it again would stop on the same error, and its receiver would keep acknowledging
    // commits that a failover (which never promotes it) would not find.
    InstanceState receiving = stoppedApplier("db-2", "0-1-11", 1062, true).build();
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), receiving);
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Detach("db-2", "db-0"));
    TopologyPlannerTest.In after =
        cluster(replica("db-1", "0-1-12", "db-0"), duplicateKey("db-2", "0-1-11"));
    assertThat(maria.plan(after.build()).step()).isEqualTo(new Step.Steady());
  }

  @Test
  void anErrantReplicaThatStillReceivesIsDetachedSoItAcknowledgesNothing() {
    InstanceState errantReceiving =
        stoppedApplier("db-2", "0-3-10", 1950, true).replicated("0-1-9").received("0-1-10").build();
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), errantReceiving);
    in.errant = java.util.Set.of("db-2");
    Plan plan = maria.plan(in.build());
    assertThat(plan.errant()).containsExactly("db-2");
    assertThat(plan.step()).isEqualTo(new Step.Detach("db-2", "db-0"));
  }

  @Test
  void aFailoverInManualModeNeverChoosesABrokenReplicaAgainAndAgain() {
    // The lowest ordinal is broken: it cannot apply what it received, so it is no candidate.
    InstanceState broken = stoppedApplier("db-1", "0-1-11", 1062, false).build();
    TopologyPlannerTest.In in =
        new TopologyPlannerTest.In()
            .with(down("db-0"), broken, TopologyPlannerTest.orphan("db-2", "0-1-12", "db-0"));
    in.primary = "db-0";
    in.unreachable = java.time.Duration.ofSeconds(60);
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Failover("db-0", java.util.List.of("db-2")));
  }

  @Test
  void noHealthySourceMeansRefusedWithTheReasonAndNothingIsWiped() {
    TopologyPlannerTest.In in = cluster(down("db-1"), errantReplica("db-2"));
    in.rebuild = automatic();
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("RebuildRefused");
    assertThat(((Step.Blocked) step).message())
        .contains("no healthy replica to copy db-2 from")
        .contains("never from the primary");
  }

  @Test
  void theSourceMustAlreadyHoldWhatTheMemberReceivedSoNoAcknowledgedCopyIsWiped() {
    // db-2 received 0-1-12 (it may have acknowledged it); db-1 has only 0-1-11 so far.
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-11", "db-0"), duplicateKey("db-2", "0-1-12"));
    in.rebuild = automatic();
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).reason()).isEqualTo("RebuildWaiting");
  }

  @Test
  void theMostCurrentHealthyReplicaIsTheSource() {
    TopologyPlannerTest.In in =
        cluster(
            replica("db-1", "0-1-10", "db-0"),
            replica("db-2", "0-1-12", "db-0"),
            errantReplica("db-3"));
    in.desired = 4;
    in.rebuild = automatic();
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-3", "db-2", "ErrantTransactions", "0-1-9"));
  }

  @Test
  void oneMemberAtATimeWhileACopyRunsTheOtherWaitsAndTheMemberStaysOut() {
    TopologyPlannerTest.In in =
        cluster(
            replica("db-1", "0-1-12", "db-0"),
            errantReplica("db-2"),
            duplicateKey("db-3", "0-1-5"));
    in.desired = 4;
    in.rebuild =
        new RebuildPolicy(
            true, null, true, null, new RebuildState(RebuildState.Phase.RUNNING, "db-2", null));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).reason()).isEqualTo("Rebuilding");
  }

  @Test
  void aMemberBeingRebuiltIsNeitherAttachedNorASwitchoverTarget() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), TopologyPlannerTest.fenced("db-2", ""));
    in.rebuild =
        new RebuildPolicy(
            false, null, true, null, new RebuildState(RebuildState.Phase.RUNNING, "db-2", null));
    assertThat(maria.plan(in.build()).step()).isInstanceOf(Step.Wait.class);
    in.switchover = "db-2";
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("SwitchoverRefused");
  }

  @Test
  void aRebuiltMemberIsRecordedThenAttached() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), TopologyPlannerTest.fenced("db-2", "0-1-12"));
    in.rebuild =
        new RebuildPolicy(
            false, null, true, null, new RebuildState(RebuildState.Phase.DONE, "db-2", null));
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.RebuildDone("db-2", null));
    in.rebuild = RebuildPolicy.manual();
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Attach("db-2", "db-0"));
  }

  @Test
  void anInterruptedRebuildResumesAndAFailedOneStaysOutUntilRequestedAgain() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), TopologyPlannerTest.fenced("db-2", ""));
    in.rebuild = interrupted("db-2");
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "Resumed", null));

    in.rebuild =
        new RebuildPolicy(
            true,
            null,
            true,
            null,
            new RebuildState(RebuildState.Phase.ABANDONED, "db-2", "the load failed"));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("RebuildFailed");
    assertThat(((Step.Blocked) step).message()).contains("mysql.bosun.dev/rebuild=db-2");

    in.rebuild =
        new RebuildPolicy(
            false,
            "db-2",
            true,
            null,
            new RebuildState(RebuildState.Phase.ABANDONED, "db-2", "the load failed"));
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "Requested", null));
  }

  @Test
  void aRequestNamingThePrimaryOrAStrangerIsRefused() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), replica("db-2", "0-1-12", "db-0"));
    in.rebuild = requested("db-0");
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).message()).contains("db-0 is the primary");
    in.rebuild = requested("db-9");
    assertThat(((Step.Blocked) maria.plan(in.build()).step()).message())
        .contains("db-9 is not an instance");
  }

  @Test
  void aRequestedHealthyReplicaIsRebuiltInManualMode() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), replica("db-2", "0-1-12", "db-0"));
    in.rebuild = requested("db-2");
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "Requested", null));
  }

  @Test
  void errantTransactionsWithoutAPlaceToKeepThemAreNeverWiped() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), errantReplica("db-2"));
    in.rebuild = new RebuildPolicy(true, null, false, null, RebuildState.none());
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).message()).contains("backupVolume.claimName");
  }

  @Test
  void anUnsupportedFlavourSaysSo() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), errantReplica("db-2"));
    in.rebuild = new RebuildPolicy(true, null, true, "not on MySQL 8.4", RebuildState.none());
    Step step = maria.plan(in.build()).step();
    assertThat(((Step.Blocked) step).reason()).isEqualTo("RebuildUnsupported");
  }

  @Test
  void aMemberBeingScaledAwayIsNotRebuilt() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), errantReplica("db-2"));
    in.desired = 2;
    in.rebuild = automatic();
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Steady());
  }

  @Test
  void aMemberBrokenAgainRightAfterItsRebuildIsNotRebuiltAgainAutomatically() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), duplicateKey("db-2", "0-1-11"));
    in.rebuild =
        new RebuildPolicy(
            true, null, true, null, RebuildState.none(), "db-2", java.time.Duration.ofSeconds(90));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).message())
        .contains("db-2 needs a rebuild again 1 minutes after its last one")
        .contains("not repeated automatically within 24 hours");
    // Long enough ago, or another member: rebuilt as usual; a request always goes ahead.
    in.rebuild =
        new RebuildPolicy(
            true, null, true, null, RebuildState.none(), "db-2", java.time.Duration.ofHours(25));
    assertThat(maria.plan(in.build()).step()).isInstanceOf(Step.Rebuild.class);
    in.rebuild =
        new RebuildPolicy(
            true, "db-2", true, null, RebuildState.none(), "db-2", java.time.Duration.ofSeconds(5));
    assertThat(maria.plan(in.build()).step()).isInstanceOf(Step.Rebuild.class);
  }

  @Test
  void aRebuildWhoseMemberWasScaledAwayEndsAsFailedAndIsForgottenWhileTheMemberIsGone() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"));
    in.desired = 2;
    in.rebuild = interrupted("db-2");
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(
            new Step.RebuildDone("db-2", "the member was scaled away before its rebuild finished"));
    in.rebuild =
        new RebuildPolicy(
            false,
            null,
            true,
            null,
            new RebuildState(RebuildState.Phase.ABANDONED, "db-2", "scaled away"));
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Steady());
  }

  @Test
  void anotherBrokenMemberIsRebuiltWhileTheRecentlyRebuiltOneWaits() {
    TopologyPlannerTest.In in =
        cluster(
            replica("db-1", "0-1-12", "db-0"),
            duplicateKey("db-2", "0-1-11"),
            duplicateKey("db-3", "0-1-11"));
    in.desired = 4;
    in.rebuild =
        new RebuildPolicy(
            true, null, true, null, RebuildState.none(), "db-2", java.time.Duration.ofMinutes(5));
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-3", "db-1", "ReplicationBroken", null));
  }

  @Test
  void whileAFailedMemberIsKeptOutNoOtherMemberIsRebuiltOnRequest() {
    TopologyPlannerTest.In in =
        cluster(
            replica("db-1", "0-1-12", "db-0"),
            TopologyPlannerTest.fenced("db-2", ""),
            replica("db-3", "0-1-12", "db-0"));
    in.desired = 4;
    in.rebuild =
        new RebuildPolicy(
            false,
            "db-3",
            true,
            null,
            new RebuildState(RebuildState.Phase.ABANDONED, "db-2", "the load failed"));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).message()).contains("no other member is rebuilt");
  }

  @Test
  void aReturningOldPrimaryExportsBeyondThePromotionPointAndAStrangerItsWholeBinlog() {
    // db-2 was the primary until 0-1-10; it wrote 0-1-11 after the promotion of db-0.
    InstanceState oldPrimary = TopologyPlannerTest.fenced("db-2", "0-1-11");
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-2-12", "db-0"), oldPrimary);
    in.instances.set(0, primary("db-0", "0-2-12"));
    in.previous = "db-2";
    in.promotion = "0-1-10";
    in.rebuild = automatic();
    // Seen errant in one round only: not yet (a transaction being applied can look like one).
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Steady());
    in.errant = java.util.Set.of("db-2");
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "ErrantTransactions", "0-1-10"));
    // No promotion point for it any more (a later failover replaced it): the planner cannot see
    // its write and attaches it, which set its received position from its binlog (0-1-11); the
    // applier then fails (1950). Nothing is taken as shared: its whole binlog is exported.
    Address a = addr("db-0");
    in.instances.set(
        2,
        Instance.replica("db-2", 2, "0-1-11", a.host(), a.port())
            .received("0-2-12")
            .sqlRunning(false)
            .lagSeconds(null)
            .lastSqlErrno(1950)
            .build());
    in.previous = "db-1";
    in.promotion = "0-2-5";
    // Its receiver still runs: stopped first, so it acknowledges nothing while it is copied.
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Detach("db-2", "db-0"));
    in.instances.set(
        2,
        Instance.replica("db-2", 2, "0-1-11", a.host(), a.port())
            .received("0-2-12")
            .ioRunning(false)
            .sqlRunning(false)
            .lagSeconds(null)
            .lastSqlErrno(1950)
            .build());
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "ErrantTransactions", ""));
  }

  /**
   * Chaos seed 107277: the rebuild of db-2, an old primary holding a transaction beyond the
   * promotion point, was interrupted after its copy had given it the snapshot's history. Its
   * position still lay beyond the promotion point, so the resumed rebuild asked for an export,
   * found nothing in its emptied binlog and failed, leaving it out for good. The primary holds all
   * of that history: nothing is exported.
   */
  @Test
  void aResumedRebuildOfAMemberWhoseHistoryThePrimaryHoldsExportsNothing() {
    TopologyPlannerTest.In in =
        cluster(
            replica("db-1", "0-2-12", "db-0"),
            Instance.primary("db-2", 2, "0-2-11")
                .readOnly(true)
                .semiSyncSourceOn(false)
                .history("0-2-11")
                .build());
    in.instances.set(0, Instance.primary("db-0", 0, "0-2-12").history("0-1-10,0-2-12").build());
    in.previous = "db-2";
    in.promotion = "0-1-10";
    in.errant = java.util.Set.of("db-2");
    in.rebuild = interrupted("db-2");
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "Resumed", null));

    // Before the copy reached that point its own transaction is there: it is exported.
    in.instances.set(
        2,
        Instance.primary("db-2", 2, "0-1-11")
            .readOnly(true)
            .semiSyncSourceOn(false)
            .history("0-1-11")
            .build());
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "Resumed", "0-1-10"));
  }

  private static final String CORRUPT =
      "its server cannot finish crash recovery: at every start InnoDB finds its files corrupt"
          + " (last exit code 1)";

  private static RebuildPolicy withUnrecoverable(
      boolean automatic, String requested, RebuildState state, String lastRebuilt, Duration ago) {
    return new RebuildPolicy(
        automatic, requested, true, null, state, lastRebuilt, ago, Map.of("db-2", CORRUPT));
  }

  @Test
  void automaticGivesAReplicaThatCannotFinishCrashRecoveryANewVolume() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), down("db-2"));
    in.rebuild = withUnrecoverable(true, null, RebuildState.none(), null, null);
    Step step = maria.plan(in.build()).step();
    assertThat(step).isEqualTo(new Step.ReplaceVolume("db-2", CORRUPT));
    assertThat(StepText.sentence(step, ""))
        .isEqualTo(
            "giving db-2 a new, empty volume because "
                + CORRUPT
                + "; the old volume is kept, and the member is rebuilt by copy once it starts");
  }

  @Test
  void manualModeOnlyReportsItButTheRebuildAnnotationReplacesTheVolume() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), down("db-2"));
    in.rebuild = withUnrecoverable(false, null, RebuildState.none(), null, null);
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Steady());
    in.rebuild = withUnrecoverable(false, "db-2", RebuildState.none(), null, null);
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.ReplaceVolume("db-2", CORRUPT));
  }

  @Test
  void aMemberThatIsMerelyDownIsNeverGivenANewVolume() {
    TopologyPlannerTest.In in =
        cluster(replica("db-1", "0-1-12", "db-0"), down("db-2"), down("db-3"));
    in.desired = 4;
    in.rebuild = withUnrecoverable(true, null, RebuildState.none(), null, null);
    // db-3 is down without evidence: left alone; db-2 is replaced.
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.ReplaceVolume("db-2", CORRUPT));
    in.rebuild = automatic();
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Steady());
  }

  @Test
  void withoutAHealthyReplicaToCopyFromAfterwardsTheVolumeIsKeptAsItIs() {
    // db-1 is broken too, and was rebuilt an hour ago: it is no source, and not copied again.
    TopologyPlannerTest.In in = cluster(duplicateKey("db-1", "0-1-11"), down("db-2"));
    in.rebuild = withUnrecoverable(true, null, RebuildState.none(), "db-1", Duration.ofHours(1));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(StepText.sentence(step, ""))
        .startsWith("db-2 " + CORRUPT)
        .contains("no healthy replica that follows the primary db-0", "volume is kept as it is");
  }

  @Test
  void notAgainWithinADayOfItsLastRebuild() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), down("db-2"));
    in.rebuild = withUnrecoverable(true, null, RebuildState.none(), "db-2", Duration.ofMinutes(30));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(StepText.sentence(step, "")).contains("db-2 needs a rebuild again 30 minutes");
  }

  @Test
  void aReplacementUnderWayIsRepeatedUntilTheMemberAnswersThenItIsCopied() {
    RebuildState replacing = new RebuildState(RebuildState.Phase.REPLACING_VOLUME, "db-2", null);
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"), down("db-2"));
    in.rebuild = withUnrecoverable(true, null, replacing, null, null);
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.ReplaceVolume("db-2", CORRUPT));
    // Evidence gone (the new Pod has not crashed): still the same replacement.
    in.rebuild = new RebuildPolicy(true, null, true, null, replacing);
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.ReplaceVolume("db-2", "its server could not finish crash recovery"));
    // On its new, empty volume it answers: held out (never attached) and copied from db-1.
    InstanceState empty = fenced("db-2", "");
    TopologyPlannerTest.In started = cluster(replica("db-1", "0-1-12", "db-0"), empty);
    started.rebuild = new RebuildPolicy(true, null, true, null, replacing);
    assertThat(maria.plan(started.build()).step())
        .isEqualTo(new Step.Rebuild("db-2", "db-1", "CrashRecoveryFailed", null));
    // Scaled away meanwhile: the record is closed.
    TopologyPlannerTest.In scaled = cluster(replica("db-1", "0-1-12", "db-0"));
    scaled.desired = 2;
    scaled.rebuild = new RebuildPolicy(true, null, true, null, replacing);
    assertThat(maria.plan(scaled.build()).step()).isInstanceOf(Step.RebuildDone.class);
  }

  @Test
  void thePrimaryIsNeverGivenANewVolumeItIsFailedAwayFrom() {
    TopologyPlannerTest.In in = cluster(replica("db-1", "0-1-12", "db-0"));
    in.rebuild =
        new RebuildPolicy(
            true, null, true, null, RebuildState.none(), null, null, Map.of("db-0", CORRUPT));
    assertThat(maria.plan(in.build()).step()).isNotInstanceOf(Step.ReplaceVolume.class);
  }
}
