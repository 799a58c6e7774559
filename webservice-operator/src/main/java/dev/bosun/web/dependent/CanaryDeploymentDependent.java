package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;

import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.rollout.Revisions;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.rollout.RolloutStep.Promote;
import dev.bosun.web.rollout.RolloutStep.RunCanary;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The canary Deployment of a gray release: the spec's Pod template beside the stable Deployment.
 * Its Pods carry the labels the Service selects, so they take traffic as they become ready, and a
 * {@link WebServiceOperator#TRACK} label that keeps them apart from the stable Pods. Present only
 * while a canary runs or is being promoted; see {@link CanaryActive}.
 */
public class CanaryDeploymentDependent
    extends CRUDKubernetesDependentResource<Deployment, WebService> {

  /** The track label's value on the canary's Pods. */
  public static final String CANARY = "canary";

  public CanaryDeploymentDependent() {
    super(Deployment.class);
  }

  @Override
  protected Deployment desired(WebService primary, Context<WebService> context) {
    return desiredCanary(primary, Deployments.step(context).orElse(null));
  }

  /**
   * Which of the WebService's Deployments is the canary: by name, not (as JOSDK would) by building
   * the whole desired Deployment, revision digest included, each time it is looked up.
   */
  @Override
  protected ResourceID targetSecondaryResourceID(WebService primary, Context<WebService> context) {
    return new ResourceID(Deployments.canaryName(primary), primary.getMetadata().getNamespace());
  }

  /** The canary Deployment the step asks for (with no replicas when none runs). */
  public static Deployment desiredCanary(WebService ws, RolloutStep step) {
    int replicas =
        step instanceof RunCanary run
            ? run.canaryReplicas()
            : step instanceof Promote promote ? promote.canaryReplicas() : 0;
    PodTemplateSpec template = PodTemplates.of(ws, ws.getSpec());
    String revision = Revisions.of(template);
    template.getMetadata().getLabels().put(WebServiceOperator.TRACK, CANARY);
    Map<String, String> selector = new LinkedHashMap<>(Labels.selector(ws, APP, COMPONENT));
    selector.put(WebServiceOperator.TRACK, CANARY);
    return new DeploymentBuilder()
        .withMetadata(
            ChildMetadata.builder(ws)
                .withName(Deployments.canaryName(ws))
                .addToLabels(WebServiceOperator.TRACK, CANARY)
                .addToAnnotations(WebServiceOperator.REVISION, revision)
                .build())
        .withNewSpec()
        .withReplicas(replicas)
        .withRevisionHistoryLimit(1)
        .withProgressDeadlineSeconds(ws.getSpec().getProgressDeadlineSeconds())
        .withNewSelector()
        .withMatchLabels(selector)
        .endSelector()
        .withStrategy(DeploymentDependent.strategy(ws.getSpec()))
        .withTemplate(template)
        .endSpec()
        .build();
  }
}
