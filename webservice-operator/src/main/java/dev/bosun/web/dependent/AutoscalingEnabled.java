package dev.bosun.web.dependent;

import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * The autoscaling/v1 autoscaler is kept while the spec asks for CPU-only autoscaling; without
 * autoscaling the workflow deletes it (with memory or custom metrics {@link MetricAutoscalers}
 * keeps it instead).
 */
public class AutoscalingEnabled implements Condition<HorizontalPodAutoscaler, WebService> {

  @Override
  public boolean isMet(
      DependentResource<HorizontalPodAutoscaler, WebService> dependentResource,
      WebService primary,
      Context<WebService> context) {
    return primary.getSpec().getAutoscaling() != null
        && !MetricAutoscalers.owns(
            primary, context.getSecondaryResource(HorizontalPodAutoscaler.class));
  }
}
