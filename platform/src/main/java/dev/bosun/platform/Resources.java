package dev.bosun.platform;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Custom resources as a user sees them: applied from YAML, read back for their conditions. */
public final class Resources {

  private Resources() {}

  /** Creates or updates the object(s) of a YAML text in {@code namespace} (server-side apply). */
  public static void apply(KubernetesClient client, String namespace, String yaml) {
    client
        .resourceList(yaml)
        .inNamespace(namespace)
        .fieldManager("e2e-user")
        .forceConflicts()
        .serverSideApply();
  }

  /** The object, or null. */
  public static GenericKubernetesResource get(
      KubernetesClient client, String apiVersion, String kind, String namespace, String name) {
    return client
        .genericKubernetesResources(apiVersion, kind)
        .inNamespace(namespace)
        .withName(name)
        .get();
  }

  /** A condition as a person reads it. */
  public record Condition(String status, String reason, String message) {}

  /** The status of condition {@code type} ("True", "False", "Unknown"), if the object has it. */
  static Optional<String> condition(GenericKubernetesResource resource, String type) {
    return conditionOf(resource, type).map(Condition::status);
  }

  /** Condition {@code type} with its reason and message, if the object has it. */
  public static Optional<Condition> conditionOf(GenericKubernetesResource resource, String type) {
    if (resource == null
        || !(resource.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
      return Optional.empty();
    }
    if (!(status.get("conditions") instanceof List<?> conditions)) {
      return Optional.empty();
    }
    return conditions.stream()
        .filter(c -> c instanceof Map<?, ?> m && type.equals(m.get("type")))
        .map(c -> (Map<?, ?>) c)
        .map(
            m ->
                new Condition(
                    String.valueOf(m.get("status")),
                    String.valueOf(m.get("reason")),
                    String.valueOf(m.get("message"))))
        .findFirst();
  }

  /** Waits until the object is Ready for its current generation (see {@link #ready}). */
  public static void awaitReady(
      KubernetesClient client,
      String apiVersion,
      String kind,
      String namespace,
      String name,
      Duration timeout) {
    org.awaitility.Awaitility.await(kind + " " + namespace + "/" + name + " Ready")
        .atMost(timeout)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> ready(get(client, apiVersion, kind, namespace, name)));
  }

  /** True when the object's Ready condition is True for its current generation. */
  public static boolean ready(GenericKubernetesResource resource) {
    if (resource == null
        || !(resource.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
      return false;
    }
    Object observed = status.get("observedGeneration");
    return condition(resource, "Ready").filter("True"::equals).isPresent()
        && observed != null
        && Long.parseLong(observed.toString()) == resource.getMetadata().getGeneration();
  }
}
