package dev.bosun.web.reconciler;

import dev.bosun.common.dependent.ChildInformers;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.dependent.PrimaryDeletions;
import dev.bosun.common.dependent.TrimmedItemStore;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.FailedReconciles;
import dev.bosun.common.status.FreshPrimary;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.AutoscalerDependent;
import dev.bosun.web.dependent.AutoscalingEnabled;
import dev.bosun.web.dependent.CanaryActive;
import dev.bosun.web.dependent.CanaryDeploymentDependent;
import dev.bosun.web.dependent.DeploymentDependent;
import dev.bosun.web.dependent.Deployments;
import dev.bosun.web.dependent.IngressDependent;
import dev.bosun.web.dependent.IngressEnabled;
import dev.bosun.web.dependent.ServiceDependent;
import dev.bosun.web.rollout.RolloutStall;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.status.WebServiceStatusAggregator;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Reconciles a WebService as a pipeline of named steps, each returning what it decided: read the
 * stored copy when a gray release needs it, check the spec and the names its children would take
 * ({@link Blocked}), observe the children and plan the release's step ({@link Observed}), write the
 * children ({@link ChildWrites}), decide the status ({@link StatusDecision}), announce and record
 * it, and say when to look again.
 */
// Generation-aware filtering would drop the rollout-action annotation; the filter keeps it and
// still ignores status-only updates.
@ControllerConfiguration(
    fieldManager = WebServiceOperator.NAME,
    generationAwareEventProcessing = false,
    informer =
        @Informer(onUpdateFilter = SpecOrActionChanged.class, itemStore = TrimmedItemStore.class))
@Workflow(
    explicitInvocation = true,
    dependents = {
      @Dependent(name = "deployment", type = DeploymentDependent.class),
      @Dependent(
          name = "canary",
          type = CanaryDeploymentDependent.class,
          reconcilePrecondition = CanaryActive.class,
          useEventSourceWithName = "deployment"),
      @Dependent(name = "service", type = ServiceDependent.class),
      @Dependent(
          name = "autoscaler",
          type = AutoscalerDependent.class,
          reconcilePrecondition = AutoscalingEnabled.class),
      @Dependent(
          name = "ingress",
          type = IngressDependent.class,
          reconcilePrecondition = IngressEnabled.class)
    })
public class WebServiceReconciler implements Reconciler<WebService>, AutoCloseable {

  private final Clock clock;
  private final WebServiceStatusAggregator aggregator;
  private final CanaryChecks checks;
  private final Announcements announce;

  public WebServiceReconciler(EventRecorder events) {
    this(events, Clock.systemUTC());
  }

  public WebServiceReconciler(EventRecorder events, Clock clock) {
    this(events, clock, CanarySampler.ofPodIps());
  }

  WebServiceReconciler(EventRecorder events, Clock clock, CanarySampler sampler) {
    this.clock = clock;
    this.aggregator = new WebServiceStatusAggregator(clock);
    this.checks = new CanaryChecks(sampler, new PrometheusGate());
    this.announce = new Announcements(events);
  }

  @Override
  public List<EventSource<?, WebService>> prepareEventSources(
      EventSourceContext<WebService> context) {
    // Pods are not watched (RolloutStall says when they are read). The budget is read from this
    // cache (one it controls always carries the operator's labels), so a reconcile neither GETs it
    // nor, without one, looks for one to remove. A deleted WebService's canary checks stop.
    return List.of(
        ChildInformers.of(
            PodDisruptionBudgets.groupVersionKind(context.getClient()),
            WebService.class,
            WebServiceOperator.MANAGED_SELECTOR,
            context),
        new PrimaryDeletions<WebService>("webservice-deletions", checks::retire));
  }

  @Override
  public UpdateControl<WebService> reconcile(WebService cached, Context<WebService> context) {
    Optional<WebService> stored = readStored(cached, context);
    if (stored.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    WebService ws = stored.get();
    WebServiceStatus previous = ws.getStatus();
    Optional<Blocked> blocked = checkSpec(ws, context);
    if (blocked.isPresent()) {
      return block(ws, previous, blocked.get(), context);
    }
    Observed seen = observe(ws, previous, context);
    blocked = ChildWrites.apply(ws, seen.step(), context);
    if (blocked.isPresent()) {
      return block(ws, previous, blocked.get(), context);
    }
    if (seen.creating()) {
      return awaitFirstReport();
    }
    StatusDecision decision = decideStatus(ws, previous, seen, context);
    if (decision.holdFor().isPresent()) {
      // A first rollout under way: its end (or the wait's) brings the first status.
      return UpdateControl.<WebService>noUpdate().rescheduleAfter(decision.holdFor().get());
    }
    record(ws, previous, seen.step(), decision.status(), context);
    return recheck(ws, seen, context);
  }

  /**
   * The WebService to reconcile, empty when it is gone. A gray release keeps its step in the
   * status. Status writes go through CachedStatusWrites, but the rollout-action annotation is
   * removed by a patch of its own, and under load a copy from before a promotion was still seen
   * (and the finished release forgotten): while a canary is declared, the stored object is read. A
   * WebService without one costs no read.
   */
  private static Optional<WebService> readStored(WebService cached, Context<WebService> context) {
    return GrayRelease.canary(cached).isPresent()
        ? FreshPrimary.read(context.getClient(), cached)
        : Optional.of(cached);
  }

  /** The rules the schema cannot state, then children someone else owns. */
  private static Optional<Blocked> checkSpec(WebService ws, Context<WebService> context) {
    List<String> problems = WebServiceValidator.problems(ws);
    if (!problems.isEmpty()) {
      return Optional.of(Blocked.invalidSpec(problems));
    }
    return ForeignChildren.find(ws, context).map(Blocked::conflict);
  }

  /** The stable Deployment and its rollout, the Pods that explain it, the release's step. */
  private Observed observe(WebService ws, WebServiceStatus previous, Context<WebService> context) {
    Optional<Deployment> stable = Deployments.stable(ws, context);
    RolloutStall stall = RolloutStall.of(stable, clock.instant());
    List<Pod> pods = podsToExplain(ws, stall, context);
    RolloutStep step = GrayRelease.plan(ws, pods, context, clock, checks);
    return new Observed(stable, stall, pods, step, previous == null && stable.isEmpty());
  }

  /**
   * The Pods, read only when they explain something: a stalled rollout, or a gray release (whose
   * planner aborts on failing canary Pods). Otherwise none, and the status reports no Pod problem.
   */
  private static List<Pod> podsToExplain(
      WebService ws, RolloutStall stall, Context<WebService> context) {
    if (stall.readsPods() || GrayRelease.canary(ws).isPresent()) {
      return WebServicePods.list(ws, context.getClient());
    }
    return List.of();
  }

  /**
   * A new WebService: the children were just created, so the Deployment's reports bring the first
   * status, instead of a "creating" status overwritten a moment later. Should no report come, the
   * status is written at the latest after {@link FirstStatus#WAIT}.
   */
  private static UpdateControl<WebService> awaitFirstReport() {
    return UpdateControl.<WebService>noUpdate().rescheduleAfter(FirstStatus.WAIT);
  }

  /** The status the children's state says, and whether a first status waits for news. */
  private StatusDecision decideStatus(
      WebService ws, WebServiceStatus previous, Observed seen, Context<WebService> context) {
    Optional<Deployment> stable = Deployments.stable(ws, context);
    List<Pod> pods = seen.pods();
    WebServiceStatus status =
        aggregator.aggregate(
            ws,
            stable,
            context.getSecondaryResource(Service.class),
            pods,
            seen.stall().readsPods()
                ? PodEvents.explaining(ws, pods, context.getClient())
                : List.of(),
            GrayRelease.view(ws, seen.step(), Deployments.canary(ws, context)));
    Optional<Duration> hold =
        GrayRelease.canary(ws).isPresent()
            ? Optional.empty()
            : FirstStatus.remainingWait(stable, previous, status, clock)
                .map(
                    wait ->
                        Rechecks.earliest(Optional.of(wait), seen.stall().recheckIn())
                            .orElseThrow());
    return new StatusDecision(status, hold);
  }

  /** The Events that are news, the rollout action acted on, the status if it changed. */
  private void record(
      WebService ws,
      WebServiceStatus previous,
      RolloutStep step,
      WebServiceStatus status,
      Context<WebService> context) {
    announce.step(ws, step);
    announce.transitions(ws, previous, status);
    RolloutActions.forget(ws, context.getClient());
    CachedStatusWrites.applyIfChanged(ws, status, context);
  }

  /** The earliest time the release's step, a stalled rollout or a canary asks for. */
  private static UpdateControl<WebService> recheck(
      WebService ws, Observed seen, Context<WebService> context) {
    UpdateControl<WebService> control = UpdateControl.noUpdate();
    Rechecks.earliest(
            seen.step().recheckIn(), seen.stall().recheckIn(), Rechecks.canary(ws, context))
        .ifPresent(control::rescheduleAfter);
    return control;
  }

  /**
   * Nothing is applied and nothing is deleted: the status says why, once as an Event. No
   * reschedule: the next spec change (or a change of the conflicting object) brings us back.
   */
  private UpdateControl<WebService> block(
      WebService ws, WebServiceStatus previous, Blocked why, Context<WebService> context) {
    Blocked bounded =
        new Blocked(
            why.reason(), HumanMessages.bounded(why.problem(), 2 * HumanMessages.MAX_LENGTH));
    WebServiceStatus status = aggregator.blocked(ws, bounded.reason(), bounded.problem());
    announce.blocked(ws, previous, status, bounded);
    CachedStatusWrites.applyIfChanged(ws, status, context);
    return UpdateControl.noUpdate();
  }

  @Override
  public ErrorStatusUpdateControl<WebService> updateErrorStatus(
      WebService ws, Context<WebService> context, Exception e) {
    if (FailedReconciles.primaryGone(ws, e)) {
      // Deleted while this reconcile ran: no reconcile follows a deletion.
      checks.retire(ws);
    }
    // Retries with back-off stay on (JOSDK's default, bounded); the user sees why meanwhile.
    return FailedReconciles.record(
        ws, context, e, m -> aggregator.blocked(ws, FailedReconciles.REASON, m));
  }

  /** Stops the gray releases' background checks: the operator stops. */
  @Override
  public void close() {
    checks.close();
  }
}
