package dev.bosun.web.dependent;

import dev.bosun.common.dependent.RememberingDependent;
import dev.bosun.common.dependent.RememberingMatcher;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscalerBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/**
 * The autoscaling/v1 HorizontalPodAutoscaler (the version every supported server serves) of a
 * WebService that scales on CPU alone; see {@link AutoscalingEnabled}. One that scales on memory or
 * custom metrics too, or did, is written by {@link MetricAutoscalers}; this informer's v1 copy of
 * it tells whether it is up to date.
 */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = WebServiceOperator.MANAGED_SELECTOR,
            itemStore = OwnFieldsItemStore.class),
    matcher = RememberingMatcher.class)
public class AutoscalerDependent extends RememberingDependent<HorizontalPodAutoscaler, WebService> {

  public AutoscalerDependent() {
    super(HorizontalPodAutoscaler.class);
  }

  @Override
  protected HorizontalPodAutoscaler desired(WebService primary, Context<WebService> context) {
    return desiredAutoscaler(primary);
  }

  /**
   * The workflow deletes the autoscaler when its precondition fails, which it also does for an
   * autoscaler on memory or custom metrics: that one is {@link MetricAutoscalers}'s to keep, the
   * same object, so only an autoscaler the spec no longer asks for is deleted.
   */
  @Override
  protected void handleDelete(
      WebService primary, HorizontalPodAutoscaler secondary, Context<WebService> context) {
    if (primary.getSpec().getAutoscaling() == null) {
      super.handleDelete(primary, secondary, context);
    }
  }

  /**
   * The autoscaler a WebService with {@code autoscaling} asks for. Without it only the identity is
   * given: JOSDK asks for the desired object to find the one it deletes.
   */
  public static HorizontalPodAutoscaler desiredAutoscaler(WebService ws) {
    var autoscaling = ws.getSpec().getAutoscaling();
    if (autoscaling == null) {
      return new HorizontalPodAutoscalerBuilder().withMetadata(ChildMetadata.of(ws)).build();
    }
    return new HorizontalPodAutoscalerBuilder()
        .withMetadata(ChildMetadata.of(ws))
        .withNewSpec()
        .withNewScaleTargetRef()
        .withApiVersion("apps/v1")
        .withKind("Deployment")
        .withName(ws.getMetadata().getName())
        .endScaleTargetRef()
        .withMinReplicas(autoscaling.getMinReplicas())
        .withMaxReplicas(autoscaling.getMaxReplicas())
        .withTargetCPUUtilizationPercentage(autoscaling.getTargetCPUUtilizationPercentage())
        .endSpec()
        .build();
  }
}
