package dev.bosun.web.reconciler;

import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/** The promote or abort annotation a user sets on a WebService during a gray release. */
final class RolloutActions {

  private RolloutActions() {}

  /** A promote or abort annotation is acted on once: it is removed after the reconcile. */
  static void forget(WebService ws, KubernetesClient client) {
    var annotations = ws.getMetadata().getAnnotations();
    if (annotations == null || !annotations.containsKey(WebServiceOperator.ROLLOUT_ACTION)) {
      return;
    }
    client
        .resources(WebService.class)
        .inNamespace(ws.getMetadata().getNamespace())
        .withName(ws.getMetadata().getName())
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/"
                + WebServiceOperator.ROLLOUT_ACTION.replace("/", "~1")
                + "\"}]");
  }
}
