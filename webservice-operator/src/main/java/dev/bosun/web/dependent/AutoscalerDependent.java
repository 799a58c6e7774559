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
 * The autoscaling/v1 HorizontalPodAutoscaler (the version every supported server serves), present
 * only while the spec sets {@code autoscaling}; see {@link AutoscalingEnabled}.
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
