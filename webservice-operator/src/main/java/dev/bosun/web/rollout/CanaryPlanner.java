package dev.bosun.web.rollout;

import dev.bosun.web.rollout.CanaryJudge.Verdict;
import dev.bosun.web.rollout.CanaryPlan.Action;
import dev.bosun.web.rollout.CanaryPlan.Step;
import dev.bosun.web.rollout.RolloutState.Phase;
import dev.bosun.web.rollout.RolloutStep.Abort;
import dev.bosun.web.rollout.RolloutStep.Announcement;
import dev.bosun.web.rollout.RolloutStep.Promote;
import dev.bosun.web.rollout.RolloutStep.RunCanary;
import dev.bosun.web.rollout.RolloutStep.Steady;
import java.time.Duration;
import java.util.Optional;

/**
 * Decides the next step of a gray release, a pure function of a {@link CanaryPlan}. A new revision
 * starts a canary at the first step; a step ends when its canary Pods are ready and its pause has
 * passed since it began, then the next step follows, and after the last the stable Deployment takes
 * the new revision (promotion). Failing canary Pods, or Pods not ready within the deadline, abort:
 * the canary goes and the stable revision keeps all replicas until the spec changes again. With an
 * analysis, a failing verdict on the canary's answers ({@link CanaryJudge}) aborts too, and a step
 * does not end before its verdict.
 */
public final class CanaryPlanner {

  /** How soon a step whose analysis has too few samples yet is looked at again. */
  public static final Duration ANALYSIS_RECHECK = Duration.ofSeconds(2);

  private CanaryPlanner() {}

  /** The step to take now. */
  public static RolloutStep plan(CanaryPlan in) {
    String desired = in.desiredRevision();
    RolloutState recorded = in.recorded();
    if (in.stableRevision().isEmpty()) {
      // The first Deployment: there is no stable revision to compare a canary with.
      return new Steady(RolloutState.NONE, Optional.empty());
    }
    String stable = in.stableRevision().get();
    if (stable.equals(desired)) {
      return settled(in, recorded);
    }
    Optional<Action> action = in.action();
    if (recorded.isOf(desired)) {
      switch (recorded.phase()) {
        case ABORTED -> {
          return action.filter(a -> a == Action.PROMOTE).isPresent()
              ? promote(in, recorded, "promoted by the user after the abort")
              : new Abort(recorded, "aborted", Optional.empty());
        }
        case PROMOTING -> {
          // The stable Deployment is being given the new template; the cache lags behind.
          return new Promote(recorded, observedCanaryReplicas(in), Optional.empty());
        }
        case PROGRESSING -> {
          return progress(in, recorded);
        }
        default -> {}
      }
    }
    return start(in, stable);
  }

  private static RolloutStep start(CanaryPlan in, String stable) {
    RolloutState state =
        new RolloutState(Phase.PROGRESSING, 0, stable, in.desiredRevision(), in.now());
    int canary = canaryReplicas(in.replicas(), in.steps().get(0).weight());
    return new RunCanary(
        state,
        in.steps().get(0).weight(),
        canary,
        in.replicas() - canary,
        Optional.of(in.readyDeadline()),
        Optional.of(
            new Announcement(
                "CanaryStarted",
                stepMessage(in, 0, canary) + " (stable revision " + stable + ")",
                false)));
  }

  private static RolloutStep progress(CanaryPlan in, RolloutState recorded) {
    return interrupted(in, recorded).orElseGet(() -> advance(in, recorded));
  }

  /** A step cut short: by the user, by failing canary Pods, or by a failing verdict. */
  private static Optional<RolloutStep> interrupted(CanaryPlan in, RolloutState recorded) {
    if (in.action().filter(a -> a == Action.ABORT).isPresent()) {
      return Optional.of(abort(recorded, "aborted by the user"));
    }
    if (in.action().filter(a -> a == Action.PROMOTE).isPresent()) {
      return Optional.of(
          promote(in, recorded, "promoted by the user at step " + (recorded.step() + 1)));
    }
    if (in.canaryProblem().isPresent()) {
      return Optional.of(abort(recorded, "the canary's Pods fail: " + in.canaryProblem().get()));
    }
    if (in.analysis().filter(v -> v instanceof Verdict.Fail).isPresent()) {
      return Optional.of(abort(recorded, in.analysis().get().message()));
    }
    return Optional.empty();
  }

  /** The step held until its canary is ready, its pause over and its verdict in; then the next. */
  private static RolloutStep advance(CanaryPlan in, RolloutState recorded) {
    // While the verdict is pending, look again soon: a failing canary aborts as soon as its
    // samples say so, and a step does not end without a verdict.
    boolean judging = in.analysis().filter(v -> v instanceof Verdict.Pending).isPresent();
    int index = Math.min(recorded.step(), in.steps().size() - 1);
    Step step = in.steps().get(index);
    int canary = canaryReplicas(in.replicas(), step.weight());
    Duration since = Duration.between(recorded.stepStartedAt(), in.now());
    boolean ready =
        in.canary()
            .filter(
                c ->
                    in.desiredRevision().equals(c.revision())
                        && c.replicas() == canary
                        && c.readyReplicas() >= canary)
            .isPresent();
    if (!ready) {
      if (since.compareTo(in.readyDeadline()) >= 0) {
        return abort(
            recorded,
            "the canary's Pods were not ready within "
                + in.readyDeadline().toSeconds()
                + "s at step "
                + (index + 1));
      }
      return hold(in, recorded, step, canary, in.readyDeadline().minus(since));
    }
    if (since.compareTo(step.pause()) < 0) {
      Duration left = step.pause().minus(since);
      return hold(
          in,
          recorded,
          step,
          canary,
          judging && left.compareTo(ANALYSIS_RECHECK) > 0 ? ANALYSIS_RECHECK : left);
    }
    if (judging) {
      return hold(in, recorded, step, canary, ANALYSIS_RECHECK);
    }
    if (index + 1 < in.steps().size()) {
      return next(in, recorded, index + 1);
    }
    return promote(in, recorded, "every step passed");
  }

  private static RunCanary next(CanaryPlan in, RolloutState recorded, int next) {
    RolloutState state =
        new RolloutState(
            Phase.PROGRESSING,
            next,
            recorded.stableRevision(),
            recorded.canaryRevision(),
            in.now());
    int nextCanary = canaryReplicas(in.replicas(), in.steps().get(next).weight());
    return new RunCanary(
        state,
        in.steps().get(next).weight(),
        nextCanary,
        in.replicas() - nextCanary,
        Optional.of(in.readyDeadline()),
        Optional.of(new Announcement("CanaryStep", stepMessage(in, next, nextCanary), false)));
  }

  private static RunCanary hold(
      CanaryPlan in, RolloutState recorded, Step step, int canary, Duration left) {
    return new RunCanary(
        recorded,
        step.weight(),
        canary,
        in.replicas() - canary,
        Optional.of(left.isNegative() ? Duration.ZERO : left),
        Optional.empty());
  }

  private static Promote promote(CanaryPlan in, RolloutState recorded, String why) {
    return new Promote(
        recorded.in(Phase.PROMOTING),
        observedCanaryReplicas(in),
        Optional.of(
            new Announcement(
                "CanaryPromoting",
                "revision "
                    + recorded.canaryRevision()
                    + " is promoted ("
                    + why
                    + "): the stable Deployment takes it on all "
                    + in.replicas()
                    + " replicas",
                false)));
  }

  private static Abort abort(RolloutState recorded, String why) {
    return new Abort(
        recorded.in(Phase.ABORTED),
        why,
        Optional.of(
            new Announcement(
                "CanaryAborted",
                "revision "
                    + recorded.canaryRevision()
                    + " is rolled back ("
                    + why
                    + "); the stable revision "
                    + recorded.stableRevision()
                    + " keeps all replicas",
                true)));
  }

  /** The stable Deployment runs the spec's revision: finish a promotion, else nothing to do. */
  private static RolloutStep settled(CanaryPlan in, RolloutState recorded) {
    if (recorded.phase() == Phase.PROMOTING && recorded.isOf(in.desiredRevision())) {
      if (!in.stableRolledOut()) {
        return new Promote(recorded, observedCanaryReplicas(in), Optional.empty());
      }
      return new Steady(
          recorded.in(Phase.PROMOTED),
          Optional.of(
              new Announcement(
                  "CanaryPromoted",
                  "revision "
                      + recorded.canaryRevision()
                      + " runs on all "
                      + in.replicas()
                      + " replicas; the canary is removed",
                  false)));
    }
    // A finished rollout stays on record; one abandoned by going back to the stable spec does not.
    boolean finished = recorded.phase() == Phase.PROMOTED || recorded.phase() == Phase.ABORTED;
    return new Steady(finished ? recorded : RolloutState.NONE, Optional.empty());
  }

  private static int observedCanaryReplicas(CanaryPlan in) {
    return in.canary().map(CanaryPlan.ObservedCanary::replicas).orElse(0);
  }

  /** The canary's replicas at {@code weight} percent: rounded up, at most all of them. */
  public static int canaryReplicas(int replicas, int weight) {
    return Math.min(replicas, (int) Math.ceil(replicas * weight / 100.0));
  }

  private static String stepMessage(CanaryPlan in, int index, int canary) {
    return "step "
        + (index + 1)
        + " of "
        + in.steps().size()
        + ": revision "
        + in.desiredRevision()
        + " gets "
        + in.steps().get(index).weight()
        + "% ("
        + canary
        + " of "
        + in.replicas()
        + " replicas)";
  }
}
