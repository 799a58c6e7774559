package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps a PodDisruptionBudget as desired, in policy/v1 where the server serves it and
 * policy/v1beta1 otherwise (Kubernetes before 1.21). It reads the live object first and writes only
 * when something differs, so a converged owner causes no writes; the owner reference lets garbage
 * collection remove the budget with its owner.
 */
public final class PodDisruptionBudgets {

  /** policy/v1, served from Kubernetes 1.21 on. */
  public static final String POLICY_V1 = "policy/v1";

  /** policy/v1beta1, the only version Kubernetes 1.20 serves. */
  public static final String POLICY_V1BETA1 = "policy/v1beta1";

  private static final String KIND = "PodDisruptionBudget";
  private static final Map<String, String> VERSION_BY_SERVER = new ConcurrentHashMap<>();

  private PodDisruptionBudgets() {}

  /** The PodDisruptionBudget API version this client's server serves (asked once per server). */
  public static String apiVersion(KubernetesClient client) {
    return VERSION_BY_SERVER.computeIfAbsent(
        client.getMasterUrl().toString(),
        server -> client.supports(PodDisruptionBudget.class) ? POLICY_V1 : POLICY_V1BETA1);
  }

  /** The group, version and kind of the budgets this client's server serves (for an informer). */
  public static GroupVersionKind groupVersionKind(KubernetesClient client) {
    return new GroupVersionKind(apiVersion(client), KIND);
  }

  /**
   * Creates or updates the budget by server-side apply under {@code fieldManager}.
   *
   * @return true when something was written
   */
  public static boolean ensure(
      KubernetesClient client, HasMetadata owner, DisruptionBudget desired, String fieldManager) {
    return ensure(client, owner, desired, fieldManager, Optional.empty());
  }

  /**
   * The same, trusting {@code cached} (an informer's copy) when it already matches: a converged
   * owner then costs no request at all. A budget missing from the cache is read from the server,
   * because an object of that name someone else made is not in a label-scoped informer.
   *
   * @return true when something was written
   */
  public static boolean ensure(
      KubernetesClient client,
      HasMetadata owner,
      DisruptionBudget desired,
      String fieldManager,
      Optional<GenericKubernetesResource> cached) {
    // Both versions have the same spec fields: one generic object serves either.
    String apiVersion = apiVersion(client);
    Map<String, Object> spec = spec(desired);
    if (cached.filter(live -> upToDate(live, owner, desired, spec)).isPresent()) {
      return false;
    }
    GenericKubernetesResource live =
        client
            .genericKubernetesResources(apiVersion, KIND)
            .inNamespace(owner.getMetadata().getNamespace())
            .withName(desired.name())
            .get();
    if (live != null && upToDate(live, owner, desired, spec)) {
      return false;
    }
    GenericKubernetesResource pdb = new GenericKubernetesResource();
    pdb.setApiVersion(apiVersion);
    pdb.setKind(KIND);
    pdb.setMetadata(metadata(owner, desired));
    pdb.setAdditionalProperty("spec", spec);
    client.resource(pdb).fieldManager(fieldManager).forceConflicts().serverSideApply();
    return true;
  }

  private static Map<String, Object> spec(DisruptionBudget desired) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("selector", Map.of("matchLabels", desired.selector()));
    if (desired.minAvailable() != null) {
      spec.put("minAvailable", desired.minAvailable());
    }
    if (desired.maxUnavailable() != null) {
      spec.put("maxUnavailable", desired.maxUnavailable());
    }
    return spec;
  }

  private static boolean upToDate(
      GenericKubernetesResource live,
      HasMetadata owner,
      DisruptionBudget desired,
      Map<String, Object> spec) {
    return matches(live, owner, desired) && spec.equals(live.getAdditionalProperties().get("spec"));
  }

  private static ObjectMeta metadata(HasMetadata owner, DisruptionBudget desired) {
    return new ObjectMetaBuilder()
        .withName(desired.name())
        .withNamespace(owner.getMetadata().getNamespace())
        .withLabels(desired.labels())
        .withOwnerReferences(ControllerOwner.of(owner))
        .build();
  }

  /** Labels present and the owner's controller reference in place. */
  private static boolean matches(HasMetadata live, HasMetadata owner, DisruptionBudget desired) {
    Map<String, String> labels = live.getMetadata().getLabels();
    boolean labelled =
        desired.labels().entrySet().stream()
            .allMatch(e -> labels != null && e.getValue().equals(labels.get(e.getKey())));
    return labelled
        && live.getMetadata().getOwnerReferences().stream()
            .anyMatch(
                r ->
                    Boolean.TRUE.equals(r.getController())
                        && owner.getMetadata().getUid().equals(r.getUid()));
  }
}
