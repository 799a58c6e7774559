package dev.bosun.web.reconciler;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.ChildInformers;
import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.dependent.TrimmedItemStore;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.OwnerReferences;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
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
import dev.bosun.web.dependent.DisruptionBudgets;
import dev.bosun.web.dependent.IngressDependent;
import dev.bosun.web.dependent.IngressEnabled;
import dev.bosun.web.dependent.MetricAutoscalers;
import dev.bosun.web.dependent.ServiceDependent;
import dev.bosun.web.rollout.RolloutStall;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.status.WebServiceStatusAggregator;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
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
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a WebService: observe (children from the informers' caches, Pods only when a rollout
 * stalls), validate (the rules the schema cannot state, and children someone else owns), reconcile
 * (the managed workflow applies Deployment, Service and autoscaler by server-side apply), then
 * record the status only when it changed.
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
public class WebServiceReconciler implements Reconciler<WebService> {

  static final String INVALID_SPEC = "InvalidSpec";
  static final String RESOURCE_CONFLICT = "ResourceConflict";
  private static final Logger LOG = LoggerFactory.getLogger(WebServiceReconciler.class);

  private final EventRecorder events;
  private final Clock clock;
  private final WebServiceStatusAggregator aggregator;
  private final CanarySampler sampler;
  private final PrometheusGate gate = new PrometheusGate();

  public WebServiceReconciler(EventRecorder events) {
    this(events, Clock.systemUTC());
  }

  public WebServiceReconciler(EventRecorder events, Clock clock) {
    this(events, clock, CanarySampler.ofPodIps());
  }

  WebServiceReconciler(EventRecorder events, Clock clock, CanarySampler sampler) {
    this.events = events;
    this.clock = clock;
    this.aggregator = new WebServiceStatusAggregator(clock);
    this.sampler = sampler;
  }

  @Override
  public List<EventSource<?, WebService>> prepareEventSources(
      EventSourceContext<WebService> context) {
    // Pods are not watched (RolloutStall says when they are read). The budget is read from this
    // cache (one it controls always carries the operator's labels), so a reconcile neither GETs it
    // nor, without one, looks for one to remove.
    return List.of(
        ChildInformers.of(
            PodDisruptionBudgets.groupVersionKind(context.getClient()),
            WebService.class,
            WebServiceOperator.MANAGED_SELECTOR,
            context));
  }

  @Override
  public UpdateControl<WebService> reconcile(WebService cached, Context<WebService> context) {
    // A gray release keeps its step in the status. Status writes go through CachedStatusWrites,
    // but the rollout-action annotation is removed by a patch of its own, and under load a copy
    // from before a promotion was still seen (and the finished release forgotten): while a canary
    // is declared, the stored object is read. A WebService without one costs no read.
    WebService ws =
        GrayRelease.canary(cached).isPresent()
            ? FreshPrimary.read(context.getClient(), cached).orElse(null)
            : cached;
    if (ws == null) {
      return UpdateControl.noUpdate();
    }
    WebServiceStatus previous = ws.getStatus();

    List<String> problems = WebServiceValidator.problems(ws);
    if (!problems.isEmpty()) {
      // Nothing is applied and nothing is deleted: the last good children keep running.
      return block(
          ws,
          previous,
          INVALID_SPEC,
          AdmissionReviews.PREFIX + String.join("; ", problems),
          context);
    }
    Optional<String> conflict = foreignChild(ws, context);
    if (conflict.isPresent()) {
      return block(ws, previous, RESOURCE_CONFLICT, conflict.get(), context);
    }

    Optional<Deployment> observed = Deployments.stable(ws, context);
    RolloutStall stall = RolloutStall.of(observed, clock.instant());
    List<Pod> pods = podsToExplain(ws, stall, context);
    RolloutStep step = GrayRelease.plan(ws, pods, context, clock, sampler, gate);
    boolean creating = previous == null && observed.isEmpty();
    context.managedWorkflowAndDependentResourceContext().put(Deployments.ROLLOUT_STEP, step);
    try {
      context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
    } catch (AggregatedOperatorException e) {
      Optional<String> taken = takenDeployment(ws, e, context);
      if (taken.isPresent()) {
        return block(ws, previous, RESOURCE_CONFLICT, taken.get(), context);
      }
      throw e;
    }
    keepDisruptionBudget(ws, context);
    Optional<HorizontalPodAutoscaler> autoscaler =
        context.getSecondaryResource(HorizontalPodAutoscaler.class);
    if (MetricAutoscalers.owns(ws, autoscaler)) {
      MetricAutoscalers.ensure(context.getClient(), ws, autoscaler);
    }
    if (creating) {
      // The children were just created: the Deployment's reports bring the first status, instead
      // of a "creating" status overwritten a moment later. Should no report come, the status is
      // written at the latest after FirstStatus.WAIT.
      return UpdateControl.<WebService>noUpdate().rescheduleAfter(FirstStatus.WAIT);
    }

    Optional<Deployment> stable = Deployments.stable(ws, context);
    WebServiceStatus status =
        aggregator.aggregate(
            ws,
            stable,
            context.getSecondaryResource(Service.class),
            pods,
            stall.readsPods() ? PodEvents.explaining(ws, pods, context.getClient()) : List.of(),
            GrayRelease.view(ws, step, Deployments.canary(ws, context)));
    if (GrayRelease.canary(ws).isEmpty()) {
      Optional<Duration> firstWait = FirstStatus.remainingWait(stable, previous, status, clock);
      if (firstWait.isPresent()) {
        // A first rollout under way: its end (or the wait's) brings the first status.
        return UpdateControl.<WebService>noUpdate()
            .rescheduleAfter(earliest(firstWait, stall.recheckIn()).orElseThrow());
      }
    }
    step.announcement()
        .ifPresent(
            a -> {
              LOG.info("{}: {}", a.reason(), a.message());
              events.record(
                  ws,
                  a.warning() ? EventRecorder.Type.Warning : EventRecorder.Type.Normal,
                  a.reason(),
                  a.message());
            });
    announceTransitions(ws, previous, status);
    forgetRolloutAction(ws, context.getClient());
    CachedStatusWrites.applyIfChanged(ws, status, context);
    UpdateControl<WebService> control = UpdateControl.noUpdate();
    earliest(step.recheckIn(), stall.recheckIn(), canaryRecheck(ws, context))
        .ifPresent(control::rescheduleAfter);
    return control;
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
   * While a canary's Pods are not all ready, they are read again every {@link
   * RolloutStall#SHORTEST_RECHECK}: failing ones abort the release at once instead of at its ready
   * deadline.
   */
  private static Optional<Duration> canaryRecheck(WebService ws, Context<WebService> context) {
    if (GrayRelease.canary(ws).isEmpty()) {
      return Optional.empty();
    }
    return Deployments.canary(ws, context)
        .filter(d -> !RolloutStall.rolledOut(d, false))
        .map(d -> RolloutStall.SHORTEST_RECHECK);
  }

  @SafeVarargs
  private static Optional<Duration> earliest(Optional<Duration>... waits) {
    return java.util.Arrays.stream(waits).flatMap(Optional::stream).min(Duration::compareTo);
  }

  /** A promote or abort annotation is acted on once: it is removed after this reconcile. */
  private static void forgetRolloutAction(WebService ws, KubernetesClient client) {
    var annotations = ws.getMetadata().getAnnotations();
    if (annotations == null || !annotations.containsKey(WebServiceOperator.ROLLOUT_ACTION)) {
      return;
    }
    client
        .resources(WebService.class)
        .inNamespace(ws.getMetadata().getNamespace())
        .withName(ws.getMetadata().getName())
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/"
                + WebServiceOperator.ROLLOUT_ACTION.replace("/", "~1")
                + "\"}]");
  }

  /** The budget as the spec asks, or none: only a budget this WebService controls is removed. */
  private static void keepDisruptionBudget(WebService ws, Context<WebService> context) {
    KubernetesClient client = context.getClient();
    Optional<GenericKubernetesResource> cached =
        new ChildCache<>(context)
            .named(GenericKubernetesResource.class, ws.getMetadata().getName());
    Optional<DisruptionBudget> desired = DisruptionBudgets.desired(ws);
    if (desired.isPresent()) {
      PodDisruptionBudgets.ensure(client, ws, desired.get(), WebServiceOperator.NAME, cached);
      return;
    }
    if (cached.filter(live -> OwnerReferences.isControlledBy(live, ws)).isPresent()) {
      budget(ws, client).delete();
    }
  }

  private static Resource<GenericKubernetesResource> budget(
      WebService ws, KubernetesClient client) {
    return client
        .genericKubernetesResources(PodDisruptionBudgets.apiVersion(client), "PodDisruptionBudget")
        .inNamespace(ws.getMetadata().getNamespace())
        .withName(ws.getMetadata().getName());
  }

  private UpdateControl<WebService> block(
      WebService ws,
      WebServiceStatus previous,
      String reason,
      String problem,
      Context<WebService> context) {
    String message = HumanMessages.bounded(problem, 2 * HumanMessages.MAX_LENGTH);
    WebServiceStatus status = aggregator.blocked(ws, reason, message);
    if (!sameReady(previous, status)) {
      LOG.warn("{}: {}", reason, message);
      events.warning(ws, reason, message);
    }
    // No reschedule: the next spec change (or a change of the conflicting object) brings us back.
    CachedStatusWrites.applyIfChanged(ws, status, context);
    return UpdateControl.noUpdate();
  }

  /**
   * The conflict message when the Deployment's create was refused because its name is taken by a
   * Deployment someone else owns. JOSDK creates it by server-side apply with a resourceVersion
   * precondition, which fails on any existing object, so a new WebService costs no read to find
   * out; the read is paid only here, when the create was refused.
   */
  private static Optional<String> takenDeployment(
      WebService ws, AggregatedOperatorException e, Context<WebService> context) {
    boolean refusedCreate =
        e.getAggregatedExceptions().values().stream().anyMatch(WebServiceReconciler::conflict);
    if (!refusedCreate || Deployments.stable(ws, context).isPresent()) {
      return Optional.empty();
    }
    return foreign(
        ws,
        context
            .getClient()
            .apps()
            .deployments()
            .inNamespace(ws.getMetadata().getNamespace())
            .withName(ws.getMetadata().getName())
            .get(),
        "Deployment");
  }

  private static boolean conflict(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof KubernetesClientException k
          && k.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return true;
      }
    }
    return false;
  }

  /**
   * A message naming the first child the WebService would create that already exists and belongs to
   * someone else. Bosun never takes over or overwrites such an object. The Deployment is left to
   * its guarded create ({@link #takenDeployment}); the others are looked up: a 1.20 API server
   * fails that guard on Services, and autoscalers, Ingresses and budgets are rare.
   */
  private Optional<String> foreignChild(WebService ws, Context<WebService> context) {
    String ns = ws.getMetadata().getNamespace();
    String name = ws.getMetadata().getName();
    var client = context.getClient();
    if (context.getSecondaryResource(Service.class).isEmpty()) {
      Optional<String> c =
          foreign(ws, client.services().inNamespace(ns).withName(name).get(), "Service");
      if (c.isPresent()) {
        return c;
      }
    }
    if (ws.getSpec().getAutoscaling() != null
        && context.getSecondaryResource(HorizontalPodAutoscaler.class).isEmpty()) {
      Optional<String> c =
          foreign(
              ws,
              client
                  .autoscaling()
                  .v1()
                  .horizontalPodAutoscalers()
                  .inNamespace(ns)
                  .withName(name)
                  .get(),
              "HorizontalPodAutoscaler");
      if (c.isPresent()) {
        return c;
      }
    }
    if (GrayRelease.canary(ws).isPresent() && Deployments.canary(ws, context).isEmpty()) {
      Optional<String> c =
          foreign(
              ws,
              client
                  .apps()
                  .deployments()
                  .inNamespace(ns)
                  .withName(Deployments.canaryName(ws))
                  .get(),
              "Deployment");
      if (c.isPresent()) {
        return c;
      }
    }
    if (ws.getSpec().getIngress() != null
        && context.getSecondaryResource(Ingress.class).isEmpty()) {
      Optional<String> c =
          foreign(
              ws,
              client.network().v1().ingresses().inNamespace(ns).withName(name).get(),
              "Ingress");
      if (c.isPresent()) {
        return c;
      }
    }
    if (DisruptionBudgets.desired(ws).isPresent()) {
      return foreign(ws, budget(ws, client).get(), "PodDisruptionBudget");
    }
    return Optional.empty();
  }

  private static Optional<String> foreign(WebService ws, HasMetadata existing, String kind) {
    if (existing == null || OwnerReferences.isControlledBy(existing, ws)) {
      return Optional.empty();
    }
    return Optional.of(
        kind
            + " "
            + existing.getMetadata().getName()
            + " already exists and is not managed by this WebService; rename the WebService or"
            + " delete that "
            + kind);
  }

  /** Events for the transitions a person watching the WebService cares about. */
  private void announceTransitions(WebService ws, WebServiceStatus previous, WebServiceStatus now) {
    if (sameReady(previous, now)) {
      return;
    }
    Condition ready =
        Conditions.find(now.getConditions(), WebServiceStatusAggregator.READY).orElseThrow();
    Condition degraded =
        Conditions.find(now.getConditions(), WebServiceStatusAggregator.DEGRADED).orElseThrow();
    if ("True".equals(ready.getStatus())) {
      LOG.info("ready: {}", ready.getMessage());
      // A new WebService's first Ready is in its status and printer columns; an Event each would
      // add a write per WebService for no news. Ready after a change or a failure is news.
      if (!firstRollout(ws, previous)) {
        events.normal(ws, "Ready", ready.getMessage());
      }
    } else if ("True".equals(degraded.getStatus())) {
      LOG.warn("degraded ({}): {}", degraded.getReason(), degraded.getMessage());
      events.warning(ws, degraded.getReason(), degraded.getMessage());
    } else if ("RollingOut".equals(ready.getReason()) && !firstRollout(ws, previous)) {
      // A rollout of a change is news; the first rollout of a new WebService is not.
      events.normal(ws, "RollingOut", ready.getMessage());
    }
  }

  /**
   * Whether the WebService is still on its first rollout: no status yet, or its spec unchanged
   * since it was created and still being created or rolled out without having been available yet.
   */
  private static boolean firstRollout(WebService ws, WebServiceStatus previous) {
    if (previous == null) {
      return true;
    }
    if (ws.getMetadata().getGeneration() == null || ws.getMetadata().getGeneration() > 1) {
      return false;
    }
    boolean rollingOut =
        Conditions.find(previous.getConditions(), WebServiceStatusAggregator.READY)
            .map(c -> "Creating".equals(c.getReason()) || "RollingOut".equals(c.getReason()))
            .orElse(true);
    return rollingOut
        && !Conditions.isTrue(previous.getConditions(), WebServiceStatusAggregator.AVAILABLE);
  }

  private static boolean sameReady(WebServiceStatus previous, WebServiceStatus now) {
    return Conditions.sameStatusAndReason(
        previous == null ? null : previous.getConditions(),
        now.getConditions(),
        WebServiceStatusAggregator.READY);
  }

  @Override
  public ErrorStatusUpdateControl<WebService> updateErrorStatus(
      WebService ws, Context<WebService> context, Exception e) {
    // Retries with back-off stay on (JOSDK's default, bounded); the user sees why meanwhile.
    return FailedReconciles.record(
        ws, context, e, m -> aggregator.blocked(ws, FailedReconciles.REASON, m));
  }
}
