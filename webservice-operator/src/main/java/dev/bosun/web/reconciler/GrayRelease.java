package dev.bosun.web.reconciler;

import static dev.bosun.common.status.DesiredCondition.isFalse;
import static dev.bosun.common.status.DesiredCondition.isTrue;

import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.CanaryDeploymentDependent;
import dev.bosun.web.dependent.Deployments;
import dev.bosun.web.dependent.PodTemplates;
import dev.bosun.web.rollout.CanaryPlan;
import dev.bosun.web.rollout.CanaryPlan.Action;
import dev.bosun.web.rollout.CanaryPlan.ObservedCanary;
import dev.bosun.web.rollout.CanaryPlanner;
import dev.bosun.web.rollout.Revisions;
import dev.bosun.web.rollout.RolloutStall;
import dev.bosun.web.rollout.RolloutState;
import dev.bosun.web.rollout.RolloutState.Phase;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.rollout.RolloutStep.Abort;
import dev.bosun.web.rollout.RolloutStep.Promote;
import dev.bosun.web.rollout.RolloutStep.RunCanary;
import dev.bosun.web.rollout.RolloutStep.Steady;
import dev.bosun.web.status.RolloutView;
import dev.bosun.web.status.WebServiceStatusAggregator;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.webservicespec.rollout.Canary;
import dev.bosun.web.v1alpha1.webservicestatus.Rollout;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a WebService's gray release from the cluster and its status into a {@link CanaryPlan}, asks
 * the {@link CanaryPlanner} for the step, and turns the step into status: the glue between the pure
 * planner and the reconciler.
 */
final class GrayRelease {

  private GrayRelease() {}

  /** The canary settings, when the spec asks for a gray release. */
  static Optional<Canary> canary(WebService ws) {
    return Optional.ofNullable(ws.getSpec().getRollout()).map(r -> r.getCanary());
  }

  /** The step to take now: {@link Steady} without {@code rollout.canary}. */
  static RolloutStep plan(
      WebService ws,
      Collection<Pod> pods,
      Context<WebService> context,
      Clock clock,
      CanaryChecks checks) {
    Optional<Canary> settings = canary(ws);
    if (settings.isEmpty()) {
      checks.forget(ws);
      return new Steady(RolloutState.NONE, Optional.empty());
    }
    String desired = desiredRevision(ws);
    RolloutState recorded = recorded(ws);
    Optional<Deployment> stable = Deployments.stable(ws, context);
    var canaryPods =
        pods.stream()
            .filter(
                p ->
                    CanaryDeploymentDependent.CANARY.equals(
                        p.getMetadata().getLabels().get(WebServiceOperator.TRACK)))
            .toList();
    return CanaryPlanner.plan(
        new CanaryPlan(
            steps(settings.get()),
            Duration.ofSeconds(settings.get().getReadyDeadlineSeconds()),
            ws.getSpec().getReplicas(),
            desired,
            stable.map(d -> d.getMetadata().getAnnotations().get(WebServiceOperator.REVISION)),
            stable.map(d -> RolloutStall.rolledOut(d, false)).orElse(false),
            Deployments.canary(ws, context).map(GrayRelease::observed),
            WebServiceStatusAggregator.podProblem(canaryPods).map(p -> p[1]),
            recorded,
            Action.parse(ws.getMetadata().getAnnotations().get(WebServiceOperator.ROLLOUT_ACTION)),
            Instant.now(clock).truncatedTo(ChronoUnit.SECONDS),
            CanaryAnalysis.of(
                ws, settings.get(), recorded, desired, pods, checks.sampler(), checks.gate())));
  }

  private static List<CanaryPlan.Step> steps(Canary settings) {
    return settings.getSteps().stream()
        .map(
            s ->
                new CanaryPlan.Step(
                    s.getWeight(),
                    Duration.ofSeconds(s.getPauseSeconds() == null ? 60 : s.getPauseSeconds())))
        .toList();
  }

  private static ObservedCanary observed(Deployment canary) {
    return new ObservedCanary(
        canary.getMetadata().getAnnotations().get(WebServiceOperator.REVISION),
        canary.getSpec().getReplicas() == null ? 0 : canary.getSpec().getReplicas(),
        readyReplicas(Optional.of(canary)));
  }

  private static int readyReplicas(Optional<Deployment> deployment) {
    return deployment
        .filter(d -> d.getStatus() != null && d.getStatus().getReadyReplicas() != null)
        .map(d -> d.getStatus().getReadyReplicas())
        .orElse(0);
  }

  /** The revision of the spec's Pod template. */
  static String desiredRevision(WebService ws) {
    return Revisions.of(PodTemplates.of(ws, ws.getSpec()));
  }

  /** What the status recorded about the gray release. */
  static RolloutState recorded(WebService ws) {
    Rollout r = ws.getStatus() == null ? null : ws.getStatus().getRollout();
    if (r == null || r.getPhase() == null) {
      return RolloutState.NONE;
    }
    Phase phase;
    try {
      phase = Phase.valueOf(r.getPhase().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return RolloutState.NONE;
    }
    return new RolloutState(
        phase,
        r.getStep() == null ? 0 : r.getStep() - 1,
        r.getStableRevision(),
        r.getCanaryRevision(),
        r.getStepStartedAt() == null ? null : r.getStepStartedAt().toInstant());
  }

  /** The status of the gray release after {@code step}, and the conditions it decides. */
  static Optional<RolloutView> view(WebService ws, RolloutStep step, Optional<Deployment> canary) {
    RolloutState state = step.state();
    if (state.phase() == Phase.NONE || canary(ws).isEmpty()) {
      return Optional.empty();
    }
    Rollout r = new Rollout();
    r.setPhase(phaseName(state.phase()));
    r.setStep(state.step() + 1);
    r.setSteps(canary(ws).get().getSteps().size());
    r.setStableRevision(state.stableRevision());
    r.setCanaryRevision(state.canaryRevision());
    r.setStepStartedAt(
        state.stepStartedAt() == null ? null : state.stepStartedAt().atZone(ZoneOffset.UTC));
    int canaryReady = readyReplicas(canary);
    if (step instanceof RunCanary run) {
      return Optional.of(running(ws, run, r, canaryReady));
    } else if (step instanceof Promote promote) {
      return Optional.of(promoting(ws, promote, r, canaryReady));
    } else if (step instanceof Abort abort) {
      return Optional.of(aborted(ws, abort, r));
    }
    return Optional.of(finished(ws, state, r));
  }

  private static RolloutView running(WebService ws, RunCanary run, Rollout r, int canaryReady) {
    RolloutState state = run.state();
    r.setWeight(run.weight());
    r.setCanaryReplicas(run.canaryReplicas());
    r.setCanaryReadyReplicas(canaryReady);
    String message =
        "canary step "
            + (state.step() + 1)
            + " of "
            + r.getSteps()
            + ": revision "
            + state.canaryRevision()
            + " runs "
            + run.canaryReplicas()
            + " of "
            + ws.getSpec().getReplicas()
            + " replicas ("
            + run.weight()
            + "%, "
            + canaryReady
            + " ready), revision "
            + state.stableRevision()
            + " the other "
            + run.stableReplicas();
    r.setMessage(message);
    return new RolloutView(
        r,
        isFalse(WebServiceStatusAggregator.READY, "CanaryRollout", message),
        isTrue(WebServiceStatusAggregator.PROGRESSING, "CanaryRollout", message),
        null);
  }

  private static RolloutView promoting(WebService ws, Promote promote, Rollout r, int canaryReady) {
    r.setWeight(100);
    r.setCanaryReplicas(promote.canaryReplicas());
    r.setCanaryReadyReplicas(canaryReady);
    String message =
        "promoting revision "
            + promote.state().canaryRevision()
            + ": the stable Deployment takes it on all "
            + ws.getSpec().getReplicas()
            + " replicas, then the canary is removed";
    r.setMessage(message);
    return new RolloutView(
        r,
        isFalse(WebServiceStatusAggregator.READY, "Promoting", message),
        isTrue(WebServiceStatusAggregator.PROGRESSING, "Promoting", message),
        null);
  }

  private static RolloutView aborted(WebService ws, Abort abort, Rollout r) {
    RolloutState state = abort.state();
    r.setWeight(0);
    r.setCanaryReplicas(0);
    r.setCanaryReadyReplicas(0);
    // The abort just happened: say what was rolled back; later, the message on record stands.
    String message =
        abort.announcement().isPresent()
            ? "revision "
                + state.canaryRevision()
                + " was rolled back: "
                + abort.why()
                + "; revision "
                + state.stableRevision()
                + " runs all "
                + ws.getSpec().getReplicas()
                + " replicas until the spec changes"
            : Optional.ofNullable(ws.getStatus().getRollout().getMessage()).orElse(abort.why());
    r.setMessage(message);
    return new RolloutView(
        r,
        isFalse(WebServiceStatusAggregator.READY, "RolloutAborted", message),
        isFalse(WebServiceStatusAggregator.PROGRESSING, "RolloutAborted", message),
        isTrue(WebServiceStatusAggregator.DEGRADED, "RolloutAborted", message));
  }

  /** A finished release stays on record; the Deployment's conditions stand. */
  private static RolloutView finished(WebService ws, RolloutState state, Rollout r) {
    r.setWeight(state.phase() == Phase.PROMOTED ? 100 : 0);
    r.setCanaryReplicas(0);
    r.setCanaryReadyReplicas(0);
    r.setMessage(
        state.phase() == Phase.PROMOTED
            ? "revision " + state.canaryRevision() + " was promoted"
            : Optional.ofNullable(ws.getStatus())
                .map(s -> s.getRollout())
                .map(Rollout::getMessage)
                .orElse("rolled back"));
    return new RolloutView(r, null, null, null);
  }

  private static String phaseName(Phase phase) {
    String lower = phase.name().toLowerCase(Locale.ROOT);
    return Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
  }
}
