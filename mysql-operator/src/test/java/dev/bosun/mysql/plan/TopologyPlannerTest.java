package dev.bosun.mysql.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.client.MariaDbGtids;
import dev.bosun.mysql.client.MySqlGtids;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The topology decisions, one scenario at a time, on MariaDB positions unless said. */
class TopologyPlannerTest {

  private final TopologyPlanner maria = new TopologyPlanner(new MariaDbGtids());
  private final TopologyPlanner mysql = new TopologyPlanner(new MySqlGtids());

  static Address addr(String name) {
    return new Address("127.0.0.1", 3300 + Integer.parseInt(name.substring(3)));
  }

  static InstanceState primary(String name, String gtid) {
    return Instance.primary(name, ord(name), gtid).build();
  }

  static InstanceState fenced(String name, String gtid) {
    return Instance.primary(name, ord(name), gtid).readOnly(true).semiSyncSourceOn(false).build();
  }

  static InstanceState replica(String name, String gtid, String source) {
    Address a = addr(source);
    return Instance.replica(name, ord(name), gtid, a.host(), a.port()).build();
  }

  /**
   * A replica whose source died: its IO thread is reconnecting, not receiving, and its last attempt
   * failed (2003: cannot connect).
   */
  static InstanceState orphan(String name, String gtid, String source) {
    Address a = addr(source);
    return Instance.replica(name, ord(name), gtid, a.host(), a.port())
        .ioRunning(false)
        .ioConnecting(true)
        .lastIoErrno(2003)
        .lagSeconds(null)
        .build();
  }

  /** A replica of {@code source} that restarted: its receiver is off (skip-slave-start). */
  static InstanceState restarted(String name, String gtid, String source) {
    Address a = addr(source);
    return Instance.replica(name, ord(name), gtid, a.host(), a.port())
        .ioRunning(false)
        .sqlRunning(false)
        .lagSeconds(null)
        .build();
  }

  /**
   * A stopped member that holds {@code executed}, of which only {@code received} came from a
   * source.
   */
  static InstanceState fencedWithLocalWrite(String name, String executed, String received) {
    return Instance.primary(name, ord(name), executed)
        .readOnly(true)
        .semiSyncSourceOn(false)
        .received(received)
        .build();
  }

  static InstanceState down(String name) {
    return InstanceState.unreachable(name, ord(name));
  }

  static int ord(String name) {
    return Integer.parseInt(name.substring(3));
  }

  /** Builder of planner inputs with the usual defaults (3 instances, failover after 30 s). */
  static final class In {
    int desired = 3;
    List<InstanceState> instances = new ArrayList<>();
    String primary;
    String previous;
    String promotion;
    Set<String> errant = Set.of();
    boolean failover = true;
    Duration unreachable = Duration.ZERO;
    String switchover;
    RestoreState restore = RestoreState.none();
    PromotionIntent intent;
    RebuildPolicy rebuild = RebuildPolicy.manual();
    ContentState content = ContentState.none();

    In with(InstanceState... states) {
      instances.addAll(List.of(states));
      return this;
    }

    TopologyInput build() {
      Map<String, Address> addresses = new LinkedHashMap<>();
      for (InstanceState i : instances) {
        addresses.put(i.name(), addr(i.name()));
      }
      return new TopologyInput(
          desired,
          instances,
          addresses,
          primary,
          previous,
          promotion,
          errant,
          failover,
          unreachable,
          Duration.ofSeconds(30),
          switchover,
          restore,
          intent,
          rebuild,
          content);
    }
  }

  @Test
  void aFreshClusterWaitsForEveryMemberThenBootstrapsTheFirst() {
    In in = new In().with(fenced("db-0", ""), fenced("db-1", ""));
    assertThat(maria.plan(in.build()).step()).isInstanceOf(Step.Wait.class);
    in.with(fenced("db-2", ""));
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Promote("db-0", "Bootstrap"));
  }

  @Test
  void aFullClusterRestartStartsFromTheMostAdvancedMemberNeverAnEmptyOne() {
    In in = new In().with(fenced("db-0", ""), fenced("db-1", "0-1-40"), fenced("db-2", "0-1-42"));
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Promote("db-2", "FullClusterRestart"));
  }

  @Test
  void aFullClusterRestartWaitsForAMissingMemberThatMayHoldMore() {
    In in = new In().with(fenced("db-0", "0-1-40"), fenced("db-1", "0-1-40"), down("db-2"));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).message()).contains("db-2");
  }

  @Test
  void divergedMembersBlockAFullClusterRestart() {
    In in = new In().with(fenced("db-0", "0-1-40"), fenced("db-1", "0-2-40"), fenced("db-2", ""));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("DivergedHistories");
  }

  @Test
  void aClusterCreatedAgainRightAfterAFailoverPromotesNeitherForkedHistory() {
    // The status is new: no recorded primary, promotion point or errant member. db-0's
    // unacknowledged 0-100-101..105 carry the highest sequence; db-1 acknowledged 0-101-101..103.
    In in =
        new In()
            .with(
                Instance.primary("db-0", 0, "0-100-105")
                    .readOnly(true)
                    .semiSyncSourceOn(false)
                    .history("0-100-105")
                    .build(),
                Instance.primary("db-1", 1, "0-101-103")
                    .readOnly(true)
                    .semiSyncSourceOn(false)
                    .history("0-100-100,0-101-103")
                    .build(),
                Instance.replica("db-2", 2, "0-101-103", "h", 1)
                    .ioRunning(false)
                    .sqlRunning(false)
                    .lagSeconds(null)
                    .history("0-100-100,0-101-103")
                    .build());
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("DivergedHistories");
    assertThat(((Step.Blocked) step).message()).contains("db-0 and db-1", "after 0-100-100");
  }

  @Test
  void aMySqlFullRestartWithAKnownErrantMemberStartsFromTheMostAdvancedOfTheOthers() {
    // db-2's local write (its own UUID bbbb) is held by nobody else: it must not block the start.
    In in =
        new In()
            .with(
                fenced("db-0", "aaaa:1-99"),
                fenced("db-1", "aaaa:1-100"),
                fencedWithLocalWrite("db-2", "aaaa:1-100,bbbb:1", "aaaa:1-100"));
    in.errant = Set.of("db-2");
    assertThat(mysql.plan(in.build()).step())
        .isEqualTo(new Step.Promote("db-1", "FullClusterRestart"));
  }

  @Test
  void aFullRestartStillWaitsOnWhatOnlyTheErrantMemberReceived() {
    // aaaa:101 reached db-2 alone (it may have acknowledged it): starting from db-1 would lose it.
    In in =
        new In()
            .with(
                fenced("db-0", "aaaa:1-99"),
                fenced("db-1", "aaaa:1-100"),
                fencedWithLocalWrite("db-2", "aaaa:1-101,bbbb:1", "aaaa:1-101"));
    in.errant = Set.of("db-2");
    Step step = mysql.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("NoCompleteCandidate");
    assertThat(((Step.Blocked) step).message()).contains("db-2").contains("aaaa:1-101");
  }

  @Test
  void aRestartedMySqlPrimaryTakesWritesAgainBesideAKnownErrantReplica() {
    InstanceState errant =
        Instance.replica("db-2", 2, "aaaa:1-10,bbbb:1", "127.0.0.1", 3300)
            .received("aaaa:1-10")
            .replicated("") // MySQL has no replicated position apart from gtid_executed
            .build();
    In in =
        new In().with(fenced("db-0", "aaaa:1-10"), replica("db-1", "aaaa:1-10", "db-0"), errant);
    in.primary = "db-0";
    in.errant = Set.of("db-2");
    assertThat(mysql.plan(in.build()).step())
        .isEqualTo(new Step.Promote("db-0", "RestartedPrimary"));
  }

  @Test
  void replicasAreAttachedToThePrimaryOneAtATimeThenSemiSyncIsTurnedOn() {
    In in = new In().with(primary("db-0", "0-1-5"), fenced("db-1", ""), fenced("db-2", ""));
    in.primary = "db-0";
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Attach("db-1", "db-0"));

    In steady =
        new In()
            .with(
                Instance.primary("db-0", 0, "0-1-5").semiSyncSourceOn(false).build(),
                replica("db-1", "0-1-5", "db-0"),
                replica("db-2", "0-1-5", "db-0"));
    steady.primary = "db-0";
    assertThat(maria.plan(steady.build()).step()).isEqualTo(new Step.SemiSync("db-0", true));
  }

  @Test
  void aHealthyClusterIsSteady() {
    In in =
        new In()
            .with(
                primary("db-0", "0-1-9"),
                replica("db-1", "0-1-9", "db-0"),
                replica("db-2", "0-1-8", "db-0"));
    in.primary = "db-0";
    Plan plan = maria.plan(in.build());
    assertThat(plan.step()).isEqualTo(new Step.Steady());
    assertThat(plan.errant()).isEmpty();
  }

  @Test
  void aSingleInstanceRunsWithoutSemiSync() {
    In in = new In().with(primary("db-0", "0-1-9"));
    in.desired = 1;
    in.primary = "db-0";
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.SemiSync("db-0", false));
  }

  @Test
  void aSecondWritableInstanceIsFenced() {
    In in =
        new In()
            .with(
                primary("db-0", "0-1-9"),
                primary("db-1", "0-1-9"),
                replica("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Fence("db-1"));
  }

  @Test
  void aReplicaWithLocalWritesIsErrantAndNotReattached() {
    InstanceState errant =
        Instance.replica("db-2", 2, "0-3-10", "127.0.0.1", 3300)
            .replicated("0-1-9")
            .received("0-1-9")
            .ioRunning(false)
            .lagSeconds(null)
            .build();
    In in = new In().with(primary("db-0", "0-1-9"), replica("db-1", "0-1-9", "db-0"), errant);
    in.primary = "db-0";
    Plan plan = maria.plan(in.build());
    assertThat(plan.errant()).containsExactly("db-2");
    assertThat(plan.step()).isEqualTo(new Step.Steady());
  }

  @Test
  void aReplicaObservedWhileItsApplierCommitsIsNotErrant() {
    // The applier logged 0-1-10 but had not yet recorded it as applied (gtid_slave_pos 0-1-9);
    // the received position, read after the binlog's, holds it: the source's, not a local write.
    InstanceState committing =
        Instance.replica("db-2", 2, "0-1-10", "127.0.0.1", 3300)
            .replicated("0-1-9")
            .received("0-1-12")
            .build();
    In in = new In().with(primary("db-0", "0-1-12"), replica("db-1", "0-1-12", "db-0"), committing);
    in.primary = "db-0";
    assertThat(maria.plan(in.build()).errant()).isEmpty();
  }

  @Test
  void aMySqlReplicaHoldingTransactionsThePrimaryLacksIsErrant() {
    In in =
        new In()
            .with(
                primary("db-0", "aaaa:1-100"),
                replica("db-1", "aaaa:1-90", "db-0"),
                replica("db-2", "aaaa:1-90,bbbb:1", "db-0"));
    in.primary = "db-0";
    assertThat(mysql.plan(in.build()).errant()).containsExactly("db-2");
  }

  @Test
  void aDivergedReplicationErrorMarksTheReplicaErrant() {
    InstanceState broken =
        Instance.replica("db-1", 1, "0-1-5", "127.0.0.1", 3300)
            .ioRunning(false)
            .lagSeconds(null)
            .lastIoErrno(1236)
            .build();
    In in = new In().with(primary("db-0", "0-1-9"), broken, replica("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    assertThat(maria.plan(in.build()).errant()).containsExactly("db-1");
  }

  @Test
  void anUnreachablePrimaryIsWaitedForUntilTheDetectionTimeout() {
    In in =
        new In()
            .with(down("db-0"), orphan("db-1", "0-1-9", "db-0"), orphan("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    in.unreachable = Duration.ofSeconds(10);
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).reason()).isEqualTo("PrimaryUnreachable");
    in.unreachable = Duration.ofSeconds(30);
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Failover("db-0", List.of("db-1", "db-2")));
  }

  @Test
  void noFailoverWhileReplicasStillReceiveFromAPrimaryOnlyTheOperatorCannotReach() {
    In in =
        new In()
            .with(down("db-0"), replica("db-1", "0-1-9", "db-0"), orphan("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    in.unreachable = Duration.ofMinutes(5);
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).reason()).isEqualTo("PrimaryAliveForReplicas");
    assertThat(((Step.Wait) step).message()).contains("db-1").doesNotContain("db-2");
  }

  @Test
  void aFailoverRecordedAsIntendedResumesWithoutWaitingForTheDetectionTimeoutAgain() {
    In in =
        new In()
            .with(down("db-0"), orphan("db-1", "0-1-9", "db-0"), orphan("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    in.unreachable = Duration.ZERO;
    in.intent = new PromotionIntent("db-1", "db-0", "0-1-9");
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Failover("db-0", List.of("db-1", "db-2")));
  }

  @Test
  void aPromotedCandidateOfARecordedIntentIsAdopted() {
    In in = new In().with(down("db-0"), primary("db-1", "0-1-9"), orphan("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    in.intent = new PromotionIntent("db-1", "db-0", "0-1-9");
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Adopt("db-1"));
  }

  @Test
  void anInterruptedRestoreIsNeverStartedAgain() {
    In in = new In().with(primary("db-0", "0-1-5"), fenced("db-1", ""));
    in.desired = 2;
    in.primary = "db-0";
    in.restore = new RestoreState(RestoreState.Phase.INTERRUPTED, null);
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("RestoreInterrupted");
    in.restore = new RestoreState(RestoreState.Phase.FAILED, "the dump holds a syntax error");
    step = maria.plan(in.build()).step();
    assertThat(((Step.Blocked) step).reason()).isEqualTo("RestoreFailed");
    assertThat(((Step.Blocked) step).message()).contains("syntax error", "not run again");
  }

  @Test
  void failoverNeverOffersAnErrantReplica() {
    In in =
        new In()
            .with(down("db-0"), orphan("db-1", "0-1-9", "db-0"), orphan("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    in.errant = Set.of("db-2");
    in.unreachable = Duration.ofMinutes(1);
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Failover("db-0", List.of("db-1")));
  }

  /**
   * Found by the chaos schedule seed 370264: the operator was cut from a living primary db-1 while
   * db-2, its only acknowledging replica, crashed and restarted with its receiver off and its relay
   * log gone; the failover promoted db-2 without the commits only db-1 still held.
   */
  @Test
  void aReplicaThatRestartedTriesToReachThePrimaryBeforeAnyFailover() {
    In in =
        new In()
            .with(
                down("db-0"), orphan("db-1", "0-1-9", "db-0"), restarted("db-2", "0-1-7", "db-0"));
    in.primary = "db-0";
    in.unreachable = Duration.ofMinutes(1);
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Attach("db-2", "db-0"));

    // Started and still trying: the failover waits for the attempt's outcome.
    Address a = addr("db-0");
    in.instances.set(
        2,
        Instance.replica("db-2", 2, "0-1-7", a.host(), a.port())
            .ioRunning(false)
            .ioConnecting(true)
            .lagSeconds(null)
            .build());
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).reason()).isEqualTo("ConfirmingPrimaryDown");
    assertThat(((Step.Wait) step).message()).contains("db-2", "db-0 lives");

    // It connected: the primary lives and is a witness's, not a failover's.
    in.instances.set(2, replica("db-2", "0-1-9", "db-0"));
    assertThat(((Step.Wait) maria.plan(in.build()).step()).reason())
        .isEqualTo("PrimaryAliveForReplicas");

    // It could not connect: the primary is down for it too, and the failover goes ahead.
    in.instances.set(2, orphan("db-2", "0-1-7", "db-0"));
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Failover("db-0", List.of("db-1", "db-2")));
  }

  /**
   * Found by the chaos schedule seed 419962: a rebuild of db-2 stopped its receiver, then failed
   * before its source was proven to hold all it received; db-2 had acknowledged commits nobody else
   * had, and the failover promoted db-1 without them.
   */
  @Test
  void noFailoverLosesWhatAMemberHeldForItsRebuildReceived() {
    In in =
        new In()
            .with(down("db-0"), orphan("db-1", "0-1-5", "db-0"), orphan("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    in.unreachable = Duration.ofMinutes(1);
    in.rebuild =
        new RebuildPolicy(
            false,
            null,
            true,
            null,
            new RebuildState(RebuildState.Phase.ABANDONED, "db-2", "its source did not answer"));
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("NoCompleteCandidate");
    assertThat(((Step.Blocked) step).message())
        .contains("db-2", "0-1-9", "db-1 lacks", "until db-0 answers again");

    // Once the candidate holds what the held member received, the failover goes ahead without it.
    in.instances.set(1, orphan("db-1", "0-1-9", "db-0"));
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Failover("db-0", List.of("db-1")));
  }

  @Test
  void noFailoverLosesWhatAnErrantReplicaReceivedFromThePrimary() {
    InstanceState errantButAhead =
        Instance.replica("db-2", 2, "0-1-9,1-3-1", addr("db-0").host(), addr("db-0").port())
            .ioRunning(false)
            .lagSeconds(null)
            .replicated("0-1-9")
            .received("0-1-9")
            .build();
    In in = new In().with(down("db-0"), orphan("db-1", "0-1-6", "db-0"), errantButAhead);
    in.primary = "db-0";
    in.errant = Set.of("db-2");
    in.unreachable = Duration.ofMinutes(1);
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).message()).contains("db-2", "0-1-9");
  }

  @Test
  void failoverWaitsForAnUnreachableReplicaThatMayHoldTheAcknowledgedCommit() {
    In in = new In().with(down("db-0"), orphan("db-1", "0-1-9", "db-0"), down("db-2"));
    in.primary = "db-0";
    in.unreachable = Duration.ofMinutes(1);
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).message()).contains("db-2");
  }

  @Test
  void failoverCanBeTurnedOff() {
    In in = new In().with(down("db-0"), replica("db-1", "0-1-9", "db-0"));
    in.desired = 2;
    in.primary = "db-0";
    in.failover = false;
    in.unreachable = Duration.ofMinutes(1);
    assertThat(maria.plan(in.build()).step()).isInstanceOf(Step.Blocked.class);
  }

  @Test
  void aReturningOldPrimaryWithWritesBeyondThePromotionPointIsErrant() {
    In in =
        new In()
            .with(
                fenced("db-0", "0-1-12"),
                primary("db-1", "0-2-20"),
                replica("db-2", "0-2-20", "db-1"));
    in.primary = "db-1";
    in.previous = "db-0";
    in.promotion = "0-1-10";
    Plan plan = maria.plan(in.build());
    assertThat(plan.errant()).containsExactly("db-0");
    assertThat(plan.step()).isNotEqualTo(new Step.Attach("db-0", "db-1"));
  }

  @Test
  void aReturningOldPrimaryWhoseWritesAllReachedTheNewOneRejoins() {
    In in =
        new In()
            .with(
                fenced("db-0", "0-1-10"),
                primary("db-1", "0-2-20"),
                replica("db-2", "0-2-20", "db-1"));
    in.primary = "db-1";
    in.previous = "db-0";
    in.promotion = "0-1-10";
    Plan plan = maria.plan(in.build());
    assertThat(plan.errant()).isEmpty();
    assertThat(plan.step()).isEqualTo(new Step.Attach("db-0", "db-1"));
  }

  @Test
  void aRestartedPrimaryTakesWritesAgainWhenNobodyHoldsMore() {
    In in =
        new In()
            .with(
                fenced("db-0", "0-1-10"),
                replica("db-1", "0-1-10", "db-0"),
                replica("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Promote("db-0", "RestartedPrimary"));
  }

  @Test
  void aRestartedPrimaryThatLostItsTailIsReplacedByTheReplicaHoldingIt() {
    In in =
        new In()
            .with(
                fenced("db-0", "0-1-8"),
                replica("db-1", "0-1-10", "db-0"),
                replica("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Failover("db-0", List.of("db-1", "db-2")));
  }

  @Test
  void aRequestedSwitchoverGoesToAHealthyReplicaOnly() {
    In in =
        new In()
            .with(
                primary("db-0", "0-1-9"),
                replica("db-1", "0-1-9", "db-0"),
                replica("db-2", "0-1-9", "db-0"));
    in.primary = "db-0";
    in.switchover = "db-2";
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Switchover("db-0", "db-2", "Requested"));
    in.switchover = "db-7";
    assertThat(maria.plan(in.build()).step()).isInstanceOf(Step.Blocked.class);
    in.switchover = "db-0";
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Steady());
  }

  @Test
  void scaleDownSwitchesAwayFromAPrimaryAboutToBeRemoved() {
    In in =
        new In()
            .with(
                replica("db-0", "0-3-9", "db-2"),
                replica("db-1", "0-3-9", "db-2"),
                primary("db-2", "0-3-9"));
    in.primary = "db-2";
    in.desired = 2;
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Switchover("db-2", "db-0", "ScaleDown"));
  }

  @Test
  void fromBackupIsNeverLoadedOverDataAClusterCreatedAgainFinds() {
    // Deleted and applied again over its kept volumes: the members start with their old data.
    In in =
        new In().with(primary("db-0", "0-100-42"), fenced("db-1", "0-100-42"), fenced("db-2", ""));
    in.primary = "db-0";
    in.restore = new RestoreState(RestoreState.Phase.PENDING, null);
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.RestoreSkipped("db-0", List.of("db-0", "db-1")));
    // One member holding data is enough.
    In one = new In().with(primary("db-0", ""), fenced("db-1", ""), fenced("db-2", "0-100-3"));
    one.primary = "db-0";
    one.restore = new RestoreState(RestoreState.Phase.PENDING, null);
    assertThat(maria.plan(one.build()).step())
        .isEqualTo(new Step.RestoreSkipped("db-0", List.of("db-2")));
  }

  @Test
  void aRestoreWaitsUntilEveryMemberIsSeenEmpty() {
    In in = new In().with(primary("db-0", ""), fenced("db-1", ""), down("db-2"));
    in.primary = "db-0";
    in.restore = new RestoreState(RestoreState.Phase.PENDING, null);
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).message()).contains("db-2", "proven empty");
  }

  @Test
  void aRestoreHappensBeforeAnyReplicaIsAttached() {
    In in = new In().with(primary("db-0", ""), fenced("db-1", ""), fenced("db-2", ""));
    in.primary = "db-0";
    in.restore = new RestoreState(RestoreState.Phase.PENDING, null);
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Restore("db-0"));
    in.restore = new RestoreState(RestoreState.Phase.RUNNING, null);
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.Wait("Restoring", "loading fromBackup into db-0"));
    in.restore = new RestoreState(RestoreState.Phase.DONE, "file:///b/db-1.sql");
    assertThat(maria.plan(in.build()).step())
        .isEqualTo(new Step.RestoreDone("db-0", "file:///b/db-1.sql"));
  }

  @Test
  void aWritableInstanceIsAdoptedWhenTheStatusLostThePrimary() {
    In in = new In().with(primary("db-1", "0-1-9"), replica("db-0", "0-1-9", "db-1"));
    in.desired = 2;
    assertThat(maria.plan(in.build()).step()).isEqualTo(new Step.Adopt("db-1"));
  }

  @Test
  void twoWritableInstancesWithoutARecordedPrimaryAreASplitBrainForAPerson() {
    In in = new In().with(primary("db-0", "0-1-9"), primary("db-1", "0-2-9"));
    in.desired = 2;
    Step step = maria.plan(in.build()).step();
    assertThat(step).isInstanceOf(Step.Blocked.class);
    assertThat(((Step.Blocked) step).reason()).isEqualTo("SplitBrain");
  }
}
