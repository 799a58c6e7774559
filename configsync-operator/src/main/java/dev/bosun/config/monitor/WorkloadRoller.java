package dev.bosun.config.monitor;

import static dev.bosun.config.ConfigSyncOperator.CONFIG_HASH_ANNOTATION;

import dev.bosun.config.ConfigSyncOperator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
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

  private final KubernetesClient client;

  public WorkloadRoller(KubernetesClient client) {
    this.client = client;
  }

  /** The workloads it touched, as {@code Kind/name}. */
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
    rollAll(
        client
            .apps()
            .deployments()
            .inNamespace(namespace)
            .withLabelSelector(selector)
            .list()
            .getItems(),
        d -> d.getSpec().getTemplate(),
        d ->
            client
                .apps()
                .deployments()
                .inNamespace(namespace)
                .withName(d.getMetadata().getName())
                .patch(context, patch),
        hash,
        rolled);
    rollAll(
        client
            .apps()
            .statefulSets()
            .inNamespace(namespace)
            .withLabelSelector(selector)
            .list()
            .getItems(),
        s -> s.getSpec().getTemplate(),
        s ->
            client
                .apps()
                .statefulSets()
                .inNamespace(namespace)
                .withName(s.getMetadata().getName())
                .patch(context, patch),
        hash,
        rolled);
    rollAll(
        client
            .apps()
            .daemonSets()
            .inNamespace(namespace)
            .withLabelSelector(selector)
            .list()
            .getItems(),
        d -> d.getSpec().getTemplate(),
        d ->
            client
                .apps()
                .daemonSets()
                .inNamespace(namespace)
                .withName(d.getMetadata().getName())
                .patch(context, patch),
        hash,
        rolled);
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

  private static <W extends HasMetadata> void rollAll(
      List<W> workloads,
      Function<W, PodTemplateSpec> template,
      Function<W, ?> patch,
      String hash,
      List<HasMetadata> rolled) {
    for (W w : workloads) {
      Map<String, String> annotations = template.apply(w).getMetadata().getAnnotations();
      if (annotations == null || !hash.equals(annotations.get(CONFIG_HASH_ANNOTATION))) {
        patch.apply(w);
        rolled.add(w);
      }
    }
  }
}
