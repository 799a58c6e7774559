package dev.bosun.web.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.meta.OwnerReferences;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.StatusRecorder;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.AutoscalerDependent;
import dev.bosun.web.dependent.AutoscalingEnabled;
import dev.bosun.web.dependent.DeploymentDependent;
import dev.bosun.web.dependent.ServiceDependent;
import dev.bosun.web.status.WebServiceStatusAggregator;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a WebService: observe (children and pods from the informers' caches), validate (the
 * rules the schema cannot state, and children someone else owns), reconcile (the managed workflow
 * applies Deployment, Service and autoscaler by server-side apply), then record the status only
 * when it changed.
 */
@ControllerConfiguration(fieldManager = WebServiceOperator.NAME)
@Workflow(
    explicitInvocation = true,
    dependents = {
      @Dependent(name = "deployment", type = DeploymentDependent.class),
      @Dependent(name = "service", type = ServiceDependent.class),
      @Dependent(
          name = "autoscaler",
          type = AutoscalerDependent.class,
          reconcilePrecondition = AutoscalingEnabled.class)
    })
public class WebServiceReconciler implements Reconciler<WebService> {

  static final String INVALID_SPEC = "InvalidSpec";
  static final String RESOURCE_CONFLICT = "ResourceConflict";
  private static final Logger LOG = LoggerFactory.getLogger(WebServiceReconciler.class);

  private final EventRecorder events;
  private final WebServiceStatusAggregator aggregator;

  public WebServiceReconciler(EventRecorder events) {
    this(events, Clock.systemUTC());
  }

  public WebServiceReconciler(EventRecorder events, Clock clock) {
    this.events = events;
    this.aggregator = new WebServiceStatusAggregator(clock);
  }

  @Override
  public List<EventSource<?, WebService>> prepareEventSources(
      EventSourceContext<WebService> context) {
    // Pods carry the WebService's name in the instance label; their container states explain a
    // rollout that does not progress (image pull errors, crash loops). Only a change of those
    // problems triggers a reconcile: binding and readiness reach us through the Deployment, and
    // reacting to every pod update would multiply the reconciles of a rollout.
    var pods =
        InformerEventSourceConfiguration.from(Pod.class, WebService.class)
            .withName("pods")
            .withLabelSelector(WebServiceOperator.MANAGED_SELECTOR)
            .withOnAddFilter(pod -> !WebServiceStatusAggregator.problemReasons(pod).isEmpty())
            .withOnUpdateFilter(
                (pod, old) ->
                    !WebServiceStatusAggregator.problemReasons(pod)
                        .equals(WebServiceStatusAggregator.problemReasons(old)))
            .withSecondaryToPrimaryMapper(Labels.toInstanceOwner())
            .build();
    return List.of(new InformerEventSource<>(pods, context));
  }

  @Override
  public UpdateControl<WebService> reconcile(WebService ws, Context<WebService> context) {
    WebServiceStatus previous = ws.getStatus();

    List<String> problems = WebServiceValidator.validate(ws.getSpec());
    if (!problems.isEmpty()) {
      // Nothing is applied and nothing is deleted: the last good children keep running.
      return block(ws, previous, INVALID_SPEC, "invalid spec: " + String.join("; ", problems));
    }
    Optional<String> conflict = foreignChild(ws, context);
    if (conflict.isPresent()) {
      return block(ws, previous, RESOURCE_CONFLICT, conflict.get());
    }

    context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();

    WebServiceStatus status =
        aggregator.aggregate(
            ws,
            context.getSecondaryResource(Deployment.class),
            context.getSecondaryResource(Service.class),
            context.getSecondaryResources(Pod.class));
    announceTransitions(ws, previous, status);
    return StatusRecorder.patchIfChanged(ws, status);
  }

  private UpdateControl<WebService> block(
      WebService ws, WebServiceStatus previous, String reason, String message) {
    WebServiceStatus status = aggregator.blocked(ws, reason, message);
    if (!sameReady(previous, status)) {
      LOG.warn("{}: {}", reason, message);
      events.warning(ws, reason, message);
    }
    // No reschedule: the next spec change (or a change of the conflicting object) brings us back.
    return StatusRecorder.patchIfChanged(ws, status);
  }

  /**
   * A message naming the first child the WebService would create that already exists and belongs to
   * someone else. Bosun never takes over or overwrites such an object.
   */
  private Optional<String> foreignChild(WebService ws, Context<WebService> context) {
    String ns = ws.getMetadata().getNamespace();
    String name = ws.getMetadata().getName();
    var client = context.getClient();
    if (context.getSecondaryResource(Deployment.class).isEmpty()) {
      Optional<String> c =
          foreign(
              ws, client.apps().deployments().inNamespace(ns).withName(name).get(), "Deployment");
      if (c.isPresent()) {
        return c;
      }
    }
    if (context.getSecondaryResource(Service.class).isEmpty()) {
      Optional<String> c =
          foreign(ws, client.services().inNamespace(ns).withName(name).get(), "Service");
      if (c.isPresent()) {
        return c;
      }
    }
    if (ws.getSpec().getAutoscaling() != null
        && context.getSecondaryResource(HorizontalPodAutoscaler.class).isEmpty()) {
      return foreign(
          ws,
          client.autoscaling().v1().horizontalPodAutoscalers().inNamespace(ns).withName(name).get(),
          "HorizontalPodAutoscaler");
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
      events.normal(ws, "Ready", ready.getMessage());
    } else if ("True".equals(degraded.getStatus())) {
      LOG.warn("degraded ({}): {}", degraded.getReason(), degraded.getMessage());
      events.warning(ws, degraded.getReason(), degraded.getMessage());
    } else if ("RollingOut".equals(ready.getReason()) && !firstRollout(previous)) {
      // A rollout of a change is news; the first rollout of a new WebService is not.
      events.normal(ws, "RollingOut", ready.getMessage());
    }
  }

  private static boolean firstRollout(WebServiceStatus previous) {
    return previous == null
        || Conditions.find(previous.getConditions(), WebServiceStatusAggregator.READY)
            .map(c -> "Creating".equals(c.getReason()))
            .orElse(true);
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
    String message = "reconcile failed, retrying: " + e.getMessage();
    LOG.warn(message, e);
    return StatusRecorder.patchErrorIfChanged(
        ws, aggregator.blocked(ws, "ReconcileError", message));
  }
}
