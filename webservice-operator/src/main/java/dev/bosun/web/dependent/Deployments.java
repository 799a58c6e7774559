package dev.bosun.web.dependent;

import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Optional;

/**
 * The two Deployments of a WebService as the informer shows them — the stable one named after it,
 * the canary with {@link WebServiceOperator#CANARY_SUFFIX} — and the rollout step the reconciler
 * decided, which their dependents read.
 */
public final class Deployments {

  /** Key of the {@link RolloutStep} in the workflow's context. */
  public static final String ROLLOUT_STEP = "rollout-step";

  private Deployments() {}

  /** The stable Deployment, if the informer has it. */
  public static Optional<Deployment> stable(WebService ws, Context<WebService> context) {
    return named(context, ws.getMetadata().getName());
  }

  /** The canary Deployment, if the informer has it. */
  public static Optional<Deployment> canary(WebService ws, Context<WebService> context) {
    return named(context, canaryName(ws));
  }

  /** The canary Deployment's name. */
  public static String canaryName(WebService ws) {
    return ws.getMetadata().getName() + WebServiceOperator.CANARY_SUFFIX;
  }

  /** The step the reconciler put into the context for this reconcile, if any. */
  static Optional<RolloutStep> step(Context<WebService> context) {
    return context
        .managedWorkflowAndDependentResourceContext()
        .get(ROLLOUT_STEP, RolloutStep.class);
  }

  private static Optional<Deployment> named(Context<WebService> context, String name) {
    return context.getSecondaryResources(Deployment.class).stream()
        .filter(d -> name.equals(d.getMetadata().getName()))
        .findFirst();
  }
}
