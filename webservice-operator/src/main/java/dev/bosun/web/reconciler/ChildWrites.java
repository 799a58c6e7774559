package dev.bosun.web.reconciler;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.meta.OwnerReferences;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.Deployments;
import dev.bosun.web.dependent.DisruptionBudgets;
import dev.bosun.web.dependent.MetricAutoscalers;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Optional;

/**
 * Writes a WebService's children: the managed workflow applies the Deployments, Service, autoscaler
 * and Ingress by server-side apply (the Deployments as {@code step} decides), then the disruption
 * budget and a metric autoscaler, which JOSDK does not manage, are kept as the spec asks.
 */
final class ChildWrites {

  private ChildWrites() {}

  /**
   * Applies the children; a {@link Blocked} conflict when the Deployment's name is taken by someone
   * else's (nothing else is written then).
   */
  static Optional<Blocked> apply(WebService ws, RolloutStep step, Context<WebService> context) {
    var workflow = context.managedWorkflowAndDependentResourceContext();
    workflow.put(Deployments.ROLLOUT_STEP, step);
    try {
      workflow.reconcileManagedWorkflow();
    } catch (AggregatedOperatorException e) {
      Optional<String> taken = ForeignChildren.takenDeployment(ws, e, context);
      if (taken.isPresent()) {
        return taken.map(Blocked::conflict);
      }
      throw e;
    }
    keepDisruptionBudget(ws, context);
    Optional<HorizontalPodAutoscaler> autoscaler =
        context.getSecondaryResource(HorizontalPodAutoscaler.class);
    if (MetricAutoscalers.owns(ws, autoscaler)) {
      try {
        MetricAutoscalers.ensure(context.getClient(), ws, autoscaler);
      } catch (Applier.ForeignObjectException e) {
        return Optional.of(Blocked.conflict(e.getMessage()));
      }
    }
    return Optional.empty();
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

  /** The WebService's PodDisruptionBudget, in the policy version the server serves. */
  static Resource<GenericKubernetesResource> budget(WebService ws, KubernetesClient client) {
    return client
        .genericKubernetesResources(PodDisruptionBudgets.apiVersion(client), "PodDisruptionBudget")
        .inNamespace(ws.getMetadata().getNamespace())
        .withName(ws.getMetadata().getName());
  }
}
