package dev.bosun.config.monitor;

import static dev.bosun.config.ConfigSyncOperator.CONFIG_HASH_ANNOTATION;

import dev.bosun.config.ConfigSyncOperator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Rolls the selected workloads by writing the configuration hash into their pod template, so each
 * workload's own rolling update replaces its pods with no loss of availability. Bare Pods are
 * deleted only when the monitor asks for it.
 */
public final class WorkloadRoller {

  /** The workload kinds that roll through their pod template, and how to reach it. */
  private static final Map<Class<? extends HasMetadata>, Function<HasMetadata, PodTemplateSpec>>
      WORKLOADS =
          Map.of(
              Deployment.class, w -> ((Deployment) w).getSpec().getTemplate(),
              StatefulSet.class, w -> ((StatefulSet) w).getSpec().getTemplate(),
              DaemonSet.class, w -> ((DaemonSet) w).getSpec().getTemplate());

  private final KubernetesClient client;

  public WorkloadRoller(KubernetesClient client) {
    this.client = client;
  }

  /** Rolls what the selector matches and returns the objects it touched. */
  public List<HasMetadata> roll(
      String namespace, LabelSelector selector, boolean deleteBarePods, String hash) {
    List<HasMetadata> rolled = new ArrayList<>();
    String patch =
        "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\""
            + CONFIG_HASH_ANNOTATION
            + "\":\""
            + hash
            + "\"}}}}}";
    // A merge patch owns only this annotation; nothing else of the user's workload is touched.
    PatchContext context =
        new PatchContext.Builder()
            .withPatchType(PatchType.JSON_MERGE)
            .withFieldManager(ConfigSyncOperator.NAME)
            .build();
    for (var kind : WORKLOADS.entrySet()) {
      var resources = client.resources(kind.getKey()).inNamespace(namespace);
      for (HasMetadata w : resources.withLabelSelector(selector).list().getItems()) {
        Map<String, String> annotations = kind.getValue().apply(w).getMetadata().getAnnotations();
        if (annotations == null || !hash.equals(annotations.get(CONFIG_HASH_ANNOTATION))) {
          resources.withName(w.getMetadata().getName()).patch(context, patch);
          rolled.add(w);
        }
      }
    }
    if (deleteBarePods) {
      for (var pod :
          client.pods().inNamespace(namespace).withLabelSelector(selector).list().getItems()) {
        boolean bare =
            pod.getMetadata().getOwnerReferences() == null
                || pod.getMetadata().getOwnerReferences().isEmpty();
        if (bare && pod.getMetadata().getDeletionTimestamp() == null) {
          client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).delete();
          rolled.add(pod);
        }
      }
    }
    return rolled;
  }
}
