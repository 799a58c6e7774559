package dev.bosun.web.dependent;

import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/** The autoscaler exists only while the spec asks for it; otherwise the workflow deletes it. */
public class AutoscalingEnabled implements Condition<HorizontalPodAutoscaler, WebService> {

  @Override
  public boolean isMet(
      DependentResource<HorizontalPodAutoscaler, WebService> dependentResource,
      WebService primary,
      Context<WebService> context) {
    return primary.getSpec().getAutoscaling() != null;
  }
}
