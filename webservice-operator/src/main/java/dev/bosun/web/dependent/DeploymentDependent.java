package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;

import dev.bosun.common.dependent.RememberingDependent;
import dev.bosun.common.dependent.RememberingMatcher;
import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.rollout.Revisions;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.rollout.RolloutStep.Abort;
import dev.bosun.web.rollout.RolloutStep.RunCanary;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.RollingUpdate;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategyBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Optional;

/** The WebService's Deployment: its pods, rolled out without ever going below the ready count. */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = WebServiceOperator.MANAGED_SELECTOR,
            itemStore = OwnFieldsItemStore.class),
    matcher = RememberingMatcher.class)
public class DeploymentDependent extends RememberingDependent<Deployment, WebService> {

  private static final int REVISION_HISTORY = 5;

  public DeploymentDependent() {
    super(Deployment.class);
  }

  @Override
  protected Deployment desired(WebService primary, Context<WebService> context) {
    return desiredDeployment(
        primary, Deployments.stable(primary, context), Deployments.step(context).orElse(null));
  }

  /** The stable Deployment is also built from the rollout step (a canary's, changing with time). */
  @Override
  protected String desiredInputs(WebService primary, Context<WebService> context) {
    String stored = super.desiredInputs(primary, context);
    return stored == null ? null : stored + " " + Deployments.step(context).orElse(null);
  }

  /**
   * Which of the WebService's Deployments is the stable one: by name, not (as JOSDK would) by
   * building the whole desired Deployment, revision digest included, each time it is looked up.
   */
  @Override
  protected ResourceID targetSecondaryResourceID(WebService primary, Context<WebService> context) {
    return new ResourceID(primary.getMetadata().getName(), primary.getMetadata().getNamespace());
  }

  /** The Deployment a WebService without a gray release in progress asks for. */
  public static Deployment desiredDeployment(WebService ws, Optional<Deployment> observed) {
    return desiredDeployment(ws, observed, null);
  }

  /**
   * The stable Deployment. While an autoscaler owns the replica count, the observed count is kept,
   * so applying never fights the autoscaler nor resets the Deployment to one pod. While a canary
   * runs, or after it aborted, the stable Deployment keeps the template it runs (its revision).
   */
  public static Deployment desiredDeployment(
      WebService ws, Optional<Deployment> observed, RolloutStep step) {
    WebServiceSpec spec = ws.getSpec();
    PodTemplateSpec template = PodTemplates.of(ws, spec);
    String revision = Revisions.of(template);
    int replicas = replicas(ws, observed);
    boolean keepsItsRevision =
        (step instanceof RunCanary || step instanceof Abort)
            && observed.isPresent()
            && observed.get().getMetadata().getAnnotations().get(WebServiceOperator.REVISION)
                != null;
    if (keepsItsRevision) {
      template = new PodTemplateSpecBuilder(observed.get().getSpec().getTemplate()).build();
      revision = observed.get().getMetadata().getAnnotations().get(WebServiceOperator.REVISION);
      replicas = step instanceof RunCanary run ? run.stableReplicas() : replicas;
    }
    return new DeploymentBuilder()
        .withMetadata(
            ChildMetadata.builder(ws)
                .addToAnnotations(
                    WebServiceOperator.SPEC_GENERATION,
                    String.valueOf(ws.getMetadata().getGeneration()))
                .addToAnnotations(WebServiceOperator.REVISION, revision)
                .build())
        .withNewSpec()
        .withReplicas(replicas)
        .withRevisionHistoryLimit(REVISION_HISTORY)
        .withProgressDeadlineSeconds(spec.getProgressDeadlineSeconds())
        .withNewSelector()
        .withMatchLabels(Labels.selector(ws, APP, COMPONENT))
        .endSelector()
        .withStrategy(strategy(spec))
        .withTemplate(template)
        .endSpec()
        .build();
  }

  /** The rolling update: by default a ready pod is never taken away before its replacement is. */
  static DeploymentStrategy strategy(WebServiceSpec spec) {
    var rollingUpdate =
        spec.getRollingUpdate() == null ? new RollingUpdate() : spec.getRollingUpdate();
    return new DeploymentStrategyBuilder()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxUnavailable(rollingUpdate.getMaxUnavailable())
        .withMaxSurge(rollingUpdate.getMaxSurge())
        .endRollingUpdate()
        .build();
  }

  private static int replicas(WebService ws, Optional<Deployment> observed) {
    var autoscaling = ws.getSpec().getAutoscaling();
    if (autoscaling == null) {
      return ws.getSpec().getReplicas();
    }
    int min = autoscaling.getMinReplicas() == null ? 1 : autoscaling.getMinReplicas();
    int max = autoscaling.getMaxReplicas();
    int current = observed.map(d -> d.getSpec().getReplicas()).filter(r -> r != null).orElse(min);
    return Math.max(min, Math.min(max, current));
  }
}
