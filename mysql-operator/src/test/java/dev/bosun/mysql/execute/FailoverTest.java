package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.mysql.client.MariaDbGtids;
import dev.bosun.mysql.plan.Instance;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.PromotionIntent;
import dev.bosun.mysql.plan.Step;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The order of a failover's actions: each phase (stop receiving, fence, observe the candidates,
 * catch up, record, promote, repoint) ends on every member before the next begins, calls to
 * different members in one phase run at once, and nothing unsafe happens after a phase fails.
 */
class FailoverTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-24T03:00:00Z"), ZoneOffset.UTC);
  private static final TopologyRecord BEFORE =
      new TopologyRecord("db-0", null, "0-1-5", null, null, null);

  /**
   * A replica of the dead db-0 that applied {@code executed} and received up to {@code received}.
   */
  private static InstanceState replica(String name, String executed, String received) {
    return Instance.replica(name, Integer.parseInt(name.substring(3)), executed, "db-0", 3306)
        .ioRunning(false)
        .lagSeconds(null)
        .received(received)
        .build();
  }

  /** Servers that record what is done to them, in order, with the boundaries in between. */
  static final class Servers implements Failover.Actions {
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final Map<String, InstanceState> states = new HashMap<>();
    final Set<String> refuseStop = new HashSet<>();
    final Set<String> refuseRepoint = new HashSet<>();
    final Set<String> concurrentPhases = Collections.synchronizedSet(new HashSet<>());
    final Map<String, CyclicBarrier> barriers = new HashMap<>();
    boolean appliesInTime = true;

    /**
     * Calls of {@code phase} wait for each other: they pass only if {@code parties} run at once.
     */
    Servers together(String phase, int parties) {
      barriers.put(phase, new CyclicBarrier(parties));
      return this;
    }

    /** Calls of all {@code phases} wait for each other: they pass only if they run at once. */
    Servers togetherAcross(int parties, String... phases) {
      CyclicBarrier b = new CyclicBarrier(parties);
      for (String phase : phases) {
        barriers.put(phase, b);
      }
      return this;
    }

    private void meet(String phase) {
      CyclicBarrier b = barriers.get(phase);
      if (b == null) {
        return;
      }
      try {
        b.await(5, TimeUnit.SECONDS);
        concurrentPhases.add(phase);
      } catch (InterruptedException | BrokenBarrierException | TimeoutException one) {
        // One after another: the barrier never filled, so the phase is not recorded as concurrent.
      }
    }

    @Override
    public void stopReceiving(String member) throws InstanceException {
      meet("stop");
      log.add("stop " + member);
      if (refuseStop.contains(member)) {
        throw new InstanceException(member + ": step failover-stop-receiving: refused");
      }
    }

    @Override
    public InstanceState observe(String member) {
      if (!member.equals("db-0")) {
        meet("observe");
      }
      log.add("observe " + member);
      return states.getOrDefault(member, InstanceState.unreachable(member, 0));
    }

    @Override
    public InstanceState probe(String member) {
      meet("probe");
      return observe(member);
    }

    @Override
    public void fence(String member) {
      log.add("fence " + member);
    }

    @Override
    public Failover.Promotion candidate(String member) {
      log.add("connect " + member);
      return new Failover.Promotion() {
        @Override
        public boolean applied(String point) {
          log.add("applied " + member + " " + point);
          return appliesInTime;
        }

        @Override
        public void promote(boolean writable) {
          log.add((writable ? "promote " : "promote read-only ") + member);
        }

        @Override
        public void close() {
          log.add("close " + member);
        }
      };
    }

    @Override
    public void repoint(String member, String primary) throws InstanceException {
      meet("repoint");
      log.add("repoint " + member + " to " + primary);
      if (refuseRepoint.contains(member)) {
        throw new InstanceException(member + ": step failover-repoint: refused");
      }
    }

    int at(String entry) {
      int i = log.indexOf(entry);
      assertThat(i).as(entry + " in " + log).isNotNegative();
      return i;
    }
  }

  private final List<TopologyRecord> saved = new ArrayList<>();

  private Outcome run(Servers s, List<String> members, List<String> candidates)
      throws InstanceException {
    return run(s, members, candidates, BEFORE);
  }

  private Outcome run(
      Servers s, List<String> members, List<String> candidates, TopologyRecord before)
      throws InstanceException {
    return run(s, members, new Step.Failover("db-0", candidates), before);
  }

  private Outcome run(Servers s, List<String> members, Step.Failover f, TopologyRecord before)
      throws InstanceException {
    return new Failover(new MariaDbGtids(), s, b -> s.log.add("| " + b), CLOCK, 30)
        .run(
            f,
            before,
            members,
            rec -> {
              s.log.add("save intent " + rec.intent().candidate());
              saved.add(rec);
            });
  }

  /** The failover of db-0 with db-1 and db-2 as candidates. */
  private Outcome runThree(Servers s) throws InstanceException {
    return run(s, List.of("db-0", "db-1", "db-2"), List.of("db-1", "db-2"));
  }

  /** The same failover, with {@code readOnly} promoted read-only if chosen. */
  private Outcome runThree(Servers s, Set<String> readOnly) throws InstanceException {
    return run(
        s,
        List.of("db-0", "db-1", "db-2"),
        new Step.Failover("db-0", List.of("db-1", "db-2"), readOnly),
        BEFORE);
  }

  private static Servers threeMembers() {
    Servers s = new Servers();
    // db-2 received more than db-1 (acknowledged, not yet applied): it is the one to promote.
    s.states.put("db-1", replica("db-1", "0-1-10", "0-1-10"));
    s.states.put("db-2", replica("db-2", "0-1-8", "0-1-12"));
    return s;
  }

  @Test
  void everyPhaseEndsOnEveryMemberBeforeTheNextAndTheIntentPrecedesThePromotion() throws Exception {
    Servers s = threeMembers();
    Outcome out = runThree(s);

    assertThat(out.reason()).isEqualTo("FailedOver");
    assertThat(out.record().primary()).isEqualTo("db-2");
    assertThat(out.record().promotionGtid()).isEqualTo("0-1-12");
    assertThat(out.record().intent()).isNull();
    assertThat(out.message()).endsWith("; db-1 follows it");
    // Nothing is asked of the old primary but whether it answers.
    assertThat(s.log).doesNotContain("stop db-0", "fence db-0");
    int stopped = s.at("| " + FailoverBoundaries.RECEIVING_STOPPED);
    assertThat(s.at("stop db-1")).isLessThan(stopped);
    assertThat(s.at("stop db-2")).isLessThan(stopped);
    int fenced = s.at("| " + FailoverBoundaries.OLD_PRIMARY_FENCED);
    assertThat(s.at("observe db-1")).isGreaterThan(fenced);
    assertThat(s.at("observe db-2")).isGreaterThan(fenced);
    // The candidate applies all it received, the intent is stored, then it takes writes.
    assertThat(s.at("applied db-2 0-1-12"))
        .isGreaterThan(s.at("| " + FailoverBoundaries.CANDIDATE_CHOSEN));
    assertThat(s.at("save intent db-2"))
        .isGreaterThan(s.at("| " + FailoverBoundaries.CANDIDATE_CAUGHT_UP));
    assertThat(s.at("promote db-2")).isGreaterThan(s.at("| " + FailoverBoundaries.INTENT_RECORDED));
    assertThat(saved)
        .singleElement()
        .extracting(TopologyRecord::intent)
        .isEqualTo(new PromotionIntent("db-2", "db-0", "0-1-12"));
    // The others follow the new primary only once it takes writes, in the same step.
    assertThat(s.at("repoint db-1 to db-2"))
        .isGreaterThan(s.at("| " + FailoverBoundaries.PROMOTED));
    assertThat(s.at("| " + FailoverBoundaries.REPLICAS_REPOINTED))
        .isGreaterThan(s.at("repoint db-1 to db-2"));
    assertThat(s.log).doesNotContain("repoint db-2 to db-2");
  }

  @Test
  void aChosenCandidateToBeComparedFirstIsPromotedReadOnlyAndItsIntentStaysOpen() throws Exception {
    Servers s = threeMembers();
    Outcome out = runThree(s, Set.of("db-2"));

    assertThat(out.reason()).isEqualTo("FailedOver");
    assertThat(s.log).contains("promote read-only db-2").doesNotContain("promote db-2");
    assertThat(s.at("promote read-only db-2"))
        .isGreaterThan(s.at("| " + FailoverBoundaries.INTENT_RECORDED));
    // The record names it the primary, and the open intent says it has not taken writes yet.
    assertThat(out.record().primary()).isEqualTo("db-2");
    assertThat(out.record().previousPrimary()).isEqualTo("db-0");
    assertThat(out.record().promotionGtid()).isEqualTo("0-1-12");
    assertThat(out.record().lastFailoverTime()).isEqualTo(CLOCK.instant());
    assertThat(out.record().intent()).isEqualTo(new PromotionIntent("db-2", "db-0", "0-1-12"));
    // Its replicas follow it at once: they are whom it is compared with.
    assertThat(s.log).contains("repoint db-1 to db-2");
    assertThat(out.message())
        .isEqualTo(
            "primary db-0 was unreachable; promoted db-2 at GTID 0-1-12; db-1 follows it; it"
                + " takes no writes until its data is compared with every other member's, since a"
                + " crash recovery may have lost rows a position claims");
  }

  @Test
  void aCandidateToBeComparedFirstThatIsNotChosenLeavesThePromotionWritable() throws Exception {
    Servers s = threeMembers();
    Outcome out = runThree(s, Set.of("db-1"));
    assertThat(s.log).contains("promote db-2");
    assertThat(out.record().intent()).isNull();
  }

  @Test
  void ofCandidatesHoldingTheSameOneKnownGoodSinceItsServerStartedIsPromoted() throws Exception {
    long t0 = 1_780_000_000L;
    Servers s = new Servers();
    // db-1 restarted since its data was last compared (at t0 + 1); db-2 runs on since t0 + 2.
    s.states.put(
        "db-1",
        Instance.replica("db-1", 1, "0-1-10", "db-0", 3306)
            .ioRunning(false)
            .lagSeconds(null)
            .startedAt(t0 + 600)
            .build());
    s.states.put(
        "db-2",
        Instance.replica("db-2", 2, "0-1-10", "db-0", 3306)
            .ioRunning(false)
            .lagSeconds(null)
            .startedAt(t0 + 2)
            .build());
    TopologyRecord before =
        BEFORE.withContent(
            new ContentRecord(Map.of("db-1", t0 + 1, "db-2", t0 + 2), Map.of(), null, null));
    Outcome out = run(s, List.of("db-0", "db-1", "db-2"), List.of("db-1", "db-2"), before);
    assertThat(out.reason()).isEqualTo("FailedOver");
    assertThat(out.record().primary()).isEqualTo("db-2");
    assertThat(s.log).contains("repoint db-1 to db-2");
  }

  @Test
  void callsToDifferentMembersInOnePhaseRunAtOnce() throws Exception {
    Servers s = new Servers().together("stop", 3).together("observe", 3).together("repoint", 2);
    s.states.put("db-1", replica("db-1", "0-1-10", "0-1-10"));
    s.states.put("db-2", replica("db-2", "0-1-10", "0-1-10"));
    s.states.put("db-3", replica("db-3", "0-1-9", "0-1-10"));
    Outcome out = run(s, List.of("db-0", "db-1", "db-2", "db-3"), List.of("db-1", "db-2", "db-3"));

    assertThat(out.reason()).isEqualTo("FailedOver");
    assertThat(out.record().primary()).isEqualTo("db-1");
    assertThat(out.message()).endsWith("; db-2, db-3 follow it");
    assertThat(s.concurrentPhases).containsExactlyInAnyOrder("stop", "observe", "repoint");
  }

  @Test
  void theOldPrimaryIsAskedOnceMoreWhileTheReceiversStopAndFencedOnlyAfterThey() throws Exception {
    Servers s = threeMembers().togetherAcross(3, "stop", "probe");
    // It answers, already read-only (fenced by hand, say): fenced again, then the failover goes on.
    s.states.put("db-0", Instance.primary("db-0", 0, "0-1-12").readOnly(true).build());
    Outcome out = runThree(s);

    assertThat(s.concurrentPhases).containsExactlyInAnyOrder("stop", "probe");
    assertThat(s.at("fence db-0")).isGreaterThan(s.at("| " + FailoverBoundaries.RECEIVING_STOPPED));
    assertThat(out.reason()).isEqualTo("FailedOver");
  }

  @Test
  void aMemberThatCannotStopReceivingStopsTheFailoverAfterAllWereAsked() throws Exception {
    Servers s = threeMembers();
    s.refuseStop.add("db-1");
    Outcome out = runThree(s);

    assertThat(out.reason()).isEqualTo("FencingFailed");
    assertThat(out.message()).contains("could not stop db-1 receiving from db-0");
    assertThat(out.record()).isEqualTo(BEFORE);
    assertThat(s.log).contains("stop db-1", "stop db-2");
    // The old primary was asked alongside, but nothing is acted on: no fence, no candidate.
    assertThat(s.log)
        .noneMatch(
            e ->
                e.startsWith("observe db-1")
                    || e.startsWith("observe db-2")
                    || e.startsWith("fence")
                    || e.startsWith("promote"))
        .doesNotContain("| " + FailoverBoundaries.RECEIVING_STOPPED);
    assertThat(saved).isEmpty();
  }

  @Test
  void anOldPrimaryThatStillTookWritesIsFencedAndTheFailoverReplanned() throws Exception {
    Servers s = threeMembers();
    s.states.put("db-0", Instance.primary("db-0", 0, "0-1-12").build());
    Outcome out = runThree(s);

    assertThat(out.reason()).isEqualTo("FailoverReplanned");
    assertThat(s.at("fence db-0")).isGreaterThan(s.at("| " + FailoverBoundaries.RECEIVING_STOPPED));
    assertThat(s.log).noneMatch(e -> e.startsWith("promote") || e.startsWith("repoint"));
    assertThat(saved).isEmpty();
  }

  @Test
  void aCandidateThatDoesNotApplyInTimeIsNotPromotedAndNobodyIsRepointed() throws Exception {
    Servers s = threeMembers();
    s.appliesInTime = false;
    Outcome out = runThree(s);

    assertThat(out.reason()).isEqualTo("FailoverAborted");
    assertThat(out.record()).isEqualTo(BEFORE);
    assertThat(s.log).contains("close db-2");
    assertThat(s.log).noneMatch(e -> e.startsWith("promote") || e.startsWith("repoint"));
    assertThat(saved).isEmpty();
  }

  @Test
  void anUnstoredIntentMeansNoPromotion() {
    Servers s = threeMembers();
    Failover f = new Failover(new MariaDbGtids(), s, b -> {}, CLOCK, 30);
    assertThatThrownBy(
            () ->
                f.run(
                    new Step.Failover("db-0", List.of("db-1", "db-2")),
                    BEFORE,
                    List.of("db-0", "db-1", "db-2"),
                    rec -> {
                      throw new InstanceException("could not record the next topology step");
                    }))
        .isInstanceOf(InstanceException.class);
    assertThat(s.log).contains("close db-2").noneMatch(e -> e.startsWith("promote"));
  }

  @Test
  void aFollowerThatCannotBeRepointedIsLeftToALaterRound() throws Exception {
    Servers s = threeMembers();
    s.states.put("db-3", replica("db-3", "0-1-10", "0-1-10"));
    s.refuseRepoint.add("db-1");
    Outcome out = run(s, List.of("db-0", "db-1", "db-2", "db-3"), List.of("db-1", "db-2", "db-3"));

    assertThat(out.reason()).isEqualTo("FailedOver");
    assertThat(out.record().primary()).isEqualTo("db-2");
    assertThat(out.message()).endsWith("; db-3 follows it");
    assertThat(s.log).contains("repoint db-1 to db-2", "repoint db-3 to db-2");
  }

  @Test
  void aMemberLeftOutOfTheCandidatesStopsReceivingButIsNeverRepointed() throws Exception {
    Servers s = threeMembers();
    // db-3 holds errant transactions: the planner left it out of the candidates.
    s.states.put("db-3", replica("db-3", "0-3-1", "0-3-1"));
    Outcome out = run(s, List.of("db-0", "db-1", "db-2", "db-3"), List.of("db-1", "db-2"));

    assertThat(out.reason()).isEqualTo("FailedOver");
    assertThat(s.log).contains("stop db-3").doesNotContain("observe db-3", "repoint db-3 to db-2");
  }

  @Test
  void aCandidateThatVanishedAbortsBeforeAnyChoice() throws Exception {
    Servers s = threeMembers();
    s.states.remove("db-1");
    Outcome out = runThree(s);

    assertThat(out.reason()).isEqualTo("FailoverAborted");
    assertThat(out.message()).contains("db-1 became unreachable");
    assertThat(s.log).noneMatch(e -> e.startsWith("connect") || e.startsWith("promote"));
  }
}
