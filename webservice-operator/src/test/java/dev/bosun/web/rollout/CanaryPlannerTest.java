package dev.bosun.web.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.rollout.CanaryPlan.Action;
import dev.bosun.web.rollout.CanaryPlan.ObservedCanary;
import dev.bosun.web.rollout.CanaryPlan.Step;
import dev.bosun.web.rollout.RolloutState.Phase;
import dev.bosun.web.rollout.RolloutStep.Abort;
import dev.bosun.web.rollout.RolloutStep.Promote;
import dev.bosun.web.rollout.RolloutStep.RunCanary;
import dev.bosun.web.rollout.RolloutStep.Steady;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CanaryPlannerTest {

  private static final Instant T0 = Instant.parse("2026-11-23T12:00:00Z");
  private static final List<Step> STEPS =
      List.of(new Step(20, Duration.ofSeconds(30)), new Step(50, Duration.ofSeconds(60)));
  private static final Duration DEADLINE = Duration.ofSeconds(120);

  /** A plan of the rollout from "old" to "new" on 5 replicas; tests change what they need. */
  private static CanaryPlan plan(
      RolloutState recorded,
      Optional<ObservedCanary> canary,
      Optional<String> problem,
      Optional<Action> action,
      Instant now) {
    return new CanaryPlan(
        STEPS,
        DEADLINE,
        5,
        "new",
        Optional.of("old"),
        true,
        canary,
        problem,
        recorded,
        action,
        now,
        Optional.empty());
  }

  private static RolloutState atStep(int step, Instant since) {
    return new RolloutState(Phase.PROGRESSING, step, "old", "new", since);
  }

  private static Optional<ObservedCanary> canary(int replicas, int ready) {
    return Optional.of(new ObservedCanary("new", replicas, ready));
  }

  /** The plan at step 1, its canary ready, {@code seconds} into the step, with a verdict. */
  private static CanaryPlan judged(CanaryJudge.Verdict verdict, long seconds) {
    CanaryPlan base =
        plan(
            atStep(0, T0),
            canary(1, 1),
            Optional.empty(),
            Optional.empty(),
            T0.plusSeconds(seconds));
    return new CanaryPlan(
        base.steps(),
        base.readyDeadline(),
        base.replicas(),
        base.desiredRevision(),
        base.stableRevision(),
        base.stableRolledOut(),
        base.canary(),
        base.canaryProblem(),
        base.recorded(),
        base.action(),
        base.now(),
        Optional.of(verdict));
  }

  @Test
  void aFailingVerdictAbortsAtOnceWithItsNumbers() {
    RolloutStep step =
        CanaryPlanner.plan(
            judged(new CanaryJudge.Verdict.Fail("the canary answers worse: 50% against 100%"), 5));
    assertThat(step).isInstanceOf(Abort.class);
    // The numbers go into the status (why) and the Warning Event, as a crash loop's do.
    assertThat(((Abort) step).why()).isEqualTo("the canary answers worse: 50% against 100%");
    assertThat(step.announcement().orElseThrow().message())
        .contains("(the canary answers worse: 50% against 100%)");
  }

  @Test
  void aPendingVerdictHoldsTheStepPastItsPauseAndLooksAgainSoon() {
    var pending =
        new CanaryJudge.Verdict.Pending("analysis: 3 canary and 3 stable samples of 20 each");
    // Within the pause: looked at again in 2 s, not at the pause's end, to abort early.
    assertThat(CanaryPlanner.plan(judged(pending, 5)).recheckIn())
        .contains(CanaryPlanner.ANALYSIS_RECHECK);
    // Past the pause: the step does not end without a verdict.
    RolloutStep past = CanaryPlanner.plan(judged(pending, 45));
    assertThat(past).isInstanceOf(RunCanary.class);
    assertThat(past.state()).isEqualTo(atStep(0, T0));
    assertThat(past.recheckIn()).contains(CanaryPlanner.ANALYSIS_RECHECK);
  }

  @Test
  void aPassingVerdictLetsTheStepEndAfterItsPause() {
    var pass = new CanaryJudge.Verdict.Pass("the canary answers as well as the stable revision");
    assertThat(CanaryPlanner.plan(judged(pass, 5)).recheckIn()).contains(Duration.ofSeconds(25));
    RolloutStep next = CanaryPlanner.plan(judged(pass, 45));
    assertThat(next.state().step()).isEqualTo(1);
  }

  @Test
  void aNewRevisionStartsTheCanaryAtTheFirstStep() {
    RolloutStep step =
        CanaryPlanner.plan(
            plan(RolloutState.NONE, Optional.empty(), Optional.empty(), Optional.empty(), T0));
    assertThat(step).isInstanceOf(RunCanary.class);
    RunCanary run = (RunCanary) step;
    assertThat(run.weight()).isEqualTo(20);
    assertThat(run.canaryReplicas()).isEqualTo(1);
    assertThat(run.stableReplicas()).isEqualTo(4);
    assertThat(run.state()).isEqualTo(new RolloutState(Phase.PROGRESSING, 0, "old", "new", T0));
    assertThat(run.recheckIn()).contains(DEADLINE);
    assertThat(run.announcement())
        .hasValueSatisfying(
            a -> {
              assertThat(a.reason()).isEqualTo("CanaryStarted");
              assertThat(a.warning()).isFalse();
              assertThat(a.message())
                  .isEqualTo(
                      "step 1 of 2: revision new gets 20% (1 of 5 replicas) (stable revision old)");
            });
  }

  @Test
  void theFirstDeploymentHasNoCanary() {
    var in =
        new CanaryPlan(
            STEPS,
            DEADLINE,
            5,
            "new",
            Optional.empty(),
            false,
            Optional.empty(),
            Optional.empty(),
            RolloutState.NONE,
            Optional.empty(),
            T0,
            Optional.empty());
    assertThat(CanaryPlanner.plan(in)).isEqualTo(new Steady(RolloutState.NONE, Optional.empty()));
  }

  @Test
  void aStepWaitsForItsCanaryPodsToBeReady() {
    RolloutStep step =
        CanaryPlanner.plan(
            plan(
                atStep(0, T0),
                canary(1, 0),
                Optional.empty(),
                Optional.empty(),
                T0.plusSeconds(50)));
    assertThat(step).isInstanceOf(RunCanary.class);
    assertThat(step.state()).isEqualTo(atStep(0, T0));
    assertThat(step.announcement()).isEmpty();
    // The ready deadline is what can end the wait now.
    assertThat(step.recheckIn()).contains(Duration.ofSeconds(70));
  }

  @Test
  void aReadyStepWaitsOutItsPause() {
    RolloutStep step =
        CanaryPlanner.plan(
            plan(
                atStep(0, T0),
                canary(1, 1),
                Optional.empty(),
                Optional.empty(),
                T0.plusSeconds(10)));
    assertThat(step).isInstanceOf(RunCanary.class);
    assertThat(step.state()).isEqualTo(atStep(0, T0));
    assertThat(step.recheckIn()).contains(Duration.ofSeconds(20));
  }

  @Test
  void aCanaryStillScalingToItsStepIsNotReadyYet() {
    // The second step wants 3 canary Pods; the Deployment still shows the first step's one.
    RolloutStep step =
        CanaryPlanner.plan(
            plan(
                atStep(1, T0),
                canary(1, 1),
                Optional.empty(),
                Optional.empty(),
                T0.plusSeconds(90)));
    assertThat(step).isInstanceOf(RunCanary.class);
    assertThat(((RunCanary) step).canaryReplicas()).isEqualTo(3);
    assertThat(step.recheckIn()).contains(Duration.ofSeconds(30));
  }

  @Test
  void afterItsPauseAReadyStepAdvancesToTheNext() {
    Instant now = T0.plusSeconds(30);
    RolloutStep step =
        CanaryPlanner.plan(
            plan(atStep(0, T0), canary(1, 1), Optional.empty(), Optional.empty(), now));
    assertThat(step).isInstanceOf(RunCanary.class);
    RunCanary run = (RunCanary) step;
    assertThat(run.state()).isEqualTo(atStep(1, now));
    assertThat(run.weight()).isEqualTo(50);
    assertThat(run.canaryReplicas()).isEqualTo(3);
    assertThat(run.stableReplicas()).isEqualTo(2);
    assertThat(run.announcement())
        .hasValueSatisfying(
            a -> {
              assertThat(a.reason()).isEqualTo("CanaryStep");
              assertThat(a.message())
                  .isEqualTo("step 2 of 2: revision new gets 50% (3 of 5 replicas)");
            });
  }

  @Test
  void afterTheLastStepTheCanaryIsPromoted() {
    RolloutStep step =
        CanaryPlanner.plan(
            plan(
                atStep(1, T0),
                canary(3, 3),
                Optional.empty(),
                Optional.empty(),
                T0.plusSeconds(60)));
    assertThat(step).isInstanceOf(Promote.class);
    Promote promote = (Promote) step;
    assertThat(promote.state().phase()).isEqualTo(Phase.PROMOTING);
    // The canary keeps its Pods until the stable Deployment runs the new revision everywhere.
    assertThat(promote.canaryReplicas()).isEqualTo(3);
    assertThat(promote.announcement())
        .hasValueSatisfying(a -> assertThat(a.reason()).isEqualTo("CanaryPromoting"));
  }

  @Test
  void aPromotionFinishesOnceTheStableDeploymentRunsTheNewRevisionEverywhere() {
    RolloutState promoting = atStep(1, T0).in(Phase.PROMOTING);
    var rollingOut =
        new CanaryPlan(
            STEPS,
            DEADLINE,
            5,
            "new",
            Optional.of("new"),
            false,
            canary(3, 3),
            Optional.empty(),
            promoting,
            Optional.empty(),
            T0.plusSeconds(70),
            Optional.empty());
    assertThat(CanaryPlanner.plan(rollingOut))
        .isEqualTo(new Promote(promoting, 3, Optional.empty()));

    var rolledOut =
        new CanaryPlan(
            STEPS,
            DEADLINE,
            5,
            "new",
            Optional.of("new"),
            true,
            canary(3, 3),
            Optional.empty(),
            promoting,
            Optional.empty(),
            T0.plusSeconds(80),
            Optional.empty());
    RolloutStep done = CanaryPlanner.plan(rolledOut);
    assertThat(done).isInstanceOf(Steady.class);
    assertThat(done.state().phase()).isEqualTo(Phase.PROMOTED);
    assertThat(done.announcement())
        .hasValueSatisfying(
            a -> {
              assertThat(a.reason()).isEqualTo("CanaryPromoted");
              assertThat(a.message())
                  .isEqualTo("revision new runs on all 5 replicas; the canary is removed");
            });

    // Afterwards it stays on record, quietly.
    var after =
        new CanaryPlan(
            STEPS,
            DEADLINE,
            5,
            "new",
            Optional.of("new"),
            true,
            Optional.empty(),
            Optional.empty(),
            done.state(),
            Optional.empty(),
            T0.plusSeconds(3600),
            Optional.empty());
    assertThat(CanaryPlanner.plan(after)).isEqualTo(new Steady(done.state(), Optional.empty()));
  }

  @Test
  void aPromotingRecordWhileTheCacheStillShowsTheOldStableKeepsPromoting() {
    RolloutState promoting = atStep(1, T0).in(Phase.PROMOTING);
    assertThat(
            CanaryPlanner.plan(
                plan(promoting, canary(3, 3), Optional.empty(), Optional.empty(), T0)))
        .isEqualTo(new Promote(promoting, 3, Optional.empty()));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "CrashLoopBackOff, pod a-canary-1, container app: CrashLoopBackOff",
    "ImagePullBackOff, pod a-canary-1, container app: ImagePullBackOff"
  })
  void failingCanaryPodsAbort(String reason, String problem) {
    RolloutStep step =
        CanaryPlanner.plan(
            plan(atStep(0, T0), canary(1, 0), Optional.of(problem), Optional.empty(), T0));
    assertThat(step).isInstanceOf(Abort.class);
    assertThat(step.state().phase()).isEqualTo(Phase.ABORTED);
    assertThat(((Abort) step).why()).isEqualTo("the canary's Pods fail: " + problem);
    assertThat(step.announcement())
        .hasValueSatisfying(
            a -> {
              assertThat(a.reason()).isEqualTo("CanaryAborted");
              assertThat(a.warning()).isTrue();
              assertThat(a.message())
                  .isEqualTo(
                      "revision new is rolled back (the canary's Pods fail: "
                          + problem
                          + "); the stable revision old keeps all replicas");
            });
  }

  @Test
  void podsNotReadyWithinTheDeadlineAbort() {
    RolloutStep step =
        CanaryPlanner.plan(
            plan(
                atStep(1, T0),
                canary(3, 1),
                Optional.empty(),
                Optional.empty(),
                T0.plus(DEADLINE)));
    assertThat(step).isInstanceOf(Abort.class);
    assertThat(((Abort) step).why())
        .isEqualTo("the canary's Pods were not ready within 120s at step 2");
  }

  @Test
  void anAbortedRevisionStaysAbortedQuietlyUntilTheSpecChanges() {
    RolloutState aborted = atStep(0, T0).in(Phase.ABORTED);
    RolloutStep step =
        CanaryPlanner.plan(
            plan(
                aborted,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                T0.plusSeconds(999)));
    assertThat(step).isInstanceOf(Abort.class);
    assertThat(step.state()).isEqualTo(aborted);
    assertThat(step.announcement()).isEmpty();
    assertThat(step.recheckIn()).isEmpty();

    // The next revision starts a new canary.
    var next =
        new CanaryPlan(
            STEPS,
            DEADLINE,
            5,
            "newer",
            Optional.of("old"),
            true,
            Optional.empty(),
            Optional.empty(),
            aborted,
            Optional.empty(),
            T0.plusSeconds(1000),
            Optional.empty());
    RolloutStep restart = CanaryPlanner.plan(next);
    assertThat(restart).isInstanceOf(RunCanary.class);
    assertThat(restart.state())
        .isEqualTo(new RolloutState(Phase.PROGRESSING, 0, "old", "newer", T0.plusSeconds(1000)));
  }

  @Test
  void goingBackToTheStableSpecEndsTheCanaryWithoutRecord() {
    var back =
        new CanaryPlan(
            STEPS,
            DEADLINE,
            5,
            "old",
            Optional.of("old"),
            true,
            canary(1, 1),
            Optional.empty(),
            atStep(0, T0),
            Optional.empty(),
            T0.plusSeconds(5),
            Optional.empty());
    assertThat(CanaryPlanner.plan(back)).isEqualTo(new Steady(RolloutState.NONE, Optional.empty()));
  }

  @Test
  void aChangeDuringACanaryRestartsItWithTheNewerRevision() {
    var changed =
        new CanaryPlan(
            STEPS,
            DEADLINE,
            5,
            "newer",
            Optional.of("old"),
            true,
            canary(3, 3),
            Optional.empty(),
            atStep(1, T0),
            Optional.empty(),
            T0.plusSeconds(5),
            Optional.empty());
    RolloutStep step = CanaryPlanner.plan(changed);
    assertThat(step).isInstanceOf(RunCanary.class);
    assertThat(step.state().step()).isZero();
    assertThat(step.state().canaryRevision()).isEqualTo("newer");
  }

  @Test
  void theUserCanPromoteOrAbortAtAnyStep() {
    RolloutStep promoted =
        CanaryPlanner.plan(
            plan(atStep(0, T0), canary(1, 0), Optional.empty(), Optional.of(Action.PROMOTE), T0));
    assertThat(promoted).isInstanceOf(Promote.class);
    assertThat(promoted.announcement().orElseThrow().message())
        .contains("promoted by the user at step 1");

    RolloutStep aborted =
        CanaryPlanner.plan(
            plan(atStep(1, T0), canary(3, 3), Optional.empty(), Optional.of(Action.ABORT), T0));
    assertThat(aborted).isInstanceOf(Abort.class);
    assertThat(((Abort) aborted).why()).isEqualTo("aborted by the user");

    // An aborted revision can still be promoted by hand; an abort of it changes nothing.
    RolloutState wasAborted = atStep(0, T0).in(Phase.ABORTED);
    assertThat(
            CanaryPlanner.plan(
                plan(
                    wasAborted,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(Action.PROMOTE),
                    T0)))
        .isInstanceOf(Promote.class);
    assertThat(
            CanaryPlanner.plan(
                    plan(
                        wasAborted,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(Action.ABORT),
                        T0))
                .announcement())
        .isEmpty();
  }

  @ParameterizedTest(name = "{0} replicas at {1}% -> {2} canary")
  @CsvSource({
    "5, 20, 1",
    "5, 50, 3",
    "4, 25, 1",
    "10, 10, 1",
    "1, 10, 1",
    "3, 99, 3",
    "0, 50, 0",
    "7, 1, 1"
  })
  void canaryReplicasAreRoundedUpAndNeverMoreThanAll(int replicas, int weight, int expected) {
    assertThat(CanaryPlanner.canaryReplicas(replicas, weight)).isEqualTo(expected);
  }

  @Test
  void actionsAreReadFromTheAnnotationLeniently() {
    assertThat(Action.parse("promote")).contains(Action.PROMOTE);
    assertThat(Action.parse(" Abort ")).contains(Action.ABORT);
    assertThat(Action.parse("later")).isEmpty();
    assertThat(Action.parse(null)).isEmpty();
  }
}
