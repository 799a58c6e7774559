package dev.bosun.web.dependent;

import dev.bosun.web.rollout.RolloutStep.Promote;
import dev.bosun.web.rollout.RolloutStep.RunCanary;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/** The canary Deployment exists while a canary runs or is being promoted; otherwise it goes. */
public class CanaryActive implements Condition<Deployment, WebService> {

  @Override
  public boolean isMet(
      DependentResource<Deployment, WebService> dependentResource,
      WebService primary,
      Context<WebService> context) {
    return Deployments.step(context)
        .filter(s -> s instanceof RunCanary || s instanceof Promote)
        .isPresent();
  }
}
