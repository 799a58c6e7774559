package dev.bosun.web.dependent;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.ControllerOwner;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.rollout.Revisions;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.webservicespec.Autoscaling;
import dev.bosun.web.v1alpha1.webservicespec.autoscaling.CustomMetrics;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HorizontalPodAutoscaler of a WebService that scales on memory or custom metrics, which
 * autoscaling/v1 cannot state: written in autoscaling/v2 where the server serves it and
 * autoscaling/v2beta2 otherwise (Kubernetes 1.20 to 1.22 serve no v2; 1.26 on no v2beta2), the
 * version asked once per server. Both versions have the same fields used here, so one generic
 * object serves either. A CPU-only autoscaler stays the autoscaling/v1 one of {@link
 * AutoscalerDependent}.
 *
 * <p>The object is the same whatever version it is read in: the v1 informer's copy tells whether it
 * is up to date by the hash of the desired object it carries as an annotation, so a converged
 * WebService costs no request.
 */
public final class MetricAutoscalers {

  public static final String V2 = "autoscaling/v2";
  public static final String V2BETA2 = "autoscaling/v2beta2";
  static final String KIND = "HorizontalPodAutoscaler";

  /** The digest of the desired spec the autoscaler was last written from. */
  public static final String SPEC_DIGEST = "web.bosun.dev/autoscaler-spec";

  private static final Map<String, String> VERSION_BY_SERVER = new ConcurrentHashMap<>();

  private MetricAutoscalers() {}

  /** Whether {@code autoscaling} asks for more than autoscaling/v1's CPU target. */
  public static boolean needed(Autoscaling autoscaling) {
    return autoscaling != null
        && (autoscaling.getTargetMemoryUtilizationPercentage() != null
            || (autoscaling.getCustomMetrics() != null
                && !autoscaling.getCustomMetrics().isEmpty()));
  }

  /**
   * Whether this class keeps {@code ws}'s autoscaler: it asks for memory or custom metrics, or its
   * autoscaler was last written here (it carries {@link #SPEC_DIGEST}). The latter stays here when
   * the spec goes back to CPU alone: an autoscaling/v1 apply would leave the metrics it cannot
   * state (the server keeps them in an annotation of the v1 form), a v2 apply replaces the list.
   */
  public static boolean owns(WebService ws, Optional<HorizontalPodAutoscaler> cached) {
    Autoscaling autoscaling = ws.getSpec().getAutoscaling();
    return autoscaling != null
        && (needed(autoscaling)
            || cached
                .map(h -> h.getMetadata().getAnnotations())
                .filter(a -> a.containsKey(SPEC_DIGEST))
                .isPresent());
  }

  /** The autoscaling API version with metrics this client's server serves (asked once). */
  public static String apiVersion(KubernetesClient client) {
    return VERSION_BY_SERVER.computeIfAbsent(
        client.getMasterUrl().toString(), server -> client.supports(V2, KIND) ? V2 : V2BETA2);
  }

  /** The autoscaler {@code ws} asks for, in {@code apiVersion} (v2 or v2beta2). */
  public static GenericKubernetesResource desired(WebService ws, String apiVersion) {
    Autoscaling a = ws.getSpec().getAutoscaling();
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put(
        "scaleTargetRef",
        ordered("apiVersion", "apps/v1", "kind", "Deployment", "name", ws.getMetadata().getName()));
    if (a.getMinReplicas() != null) {
      spec.put("minReplicas", a.getMinReplicas());
    }
    spec.put("maxReplicas", a.getMaxReplicas());
    spec.put("metrics", metrics(a));
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(apiVersion)
        .withKind(KIND)
        .withMetadata(
            ChildMetadata.builder(ws)
                .addToAnnotations(SPEC_DIGEST, Revisions.digest(spec.toString()))
                .withOwnerReferences(ControllerOwner.of(ws))
                .build())
        .withAdditionalProperties(Map.of("spec", spec))
        .build();
  }

  /** The CPU target (as today), then memory, then each custom metric as a per-Pod average. */
  static List<Map<String, Object>> metrics(Autoscaling a) {
    List<Map<String, Object>> metrics = new ArrayList<>();
    if (a.getTargetCPUUtilizationPercentage() != null) {
      metrics.add(resource("cpu", a.getTargetCPUUtilizationPercentage()));
    }
    if (a.getTargetMemoryUtilizationPercentage() != null) {
      metrics.add(resource("memory", a.getTargetMemoryUtilizationPercentage()));
    }
    for (CustomMetrics m : Optional.ofNullable(a.getCustomMetrics()).orElse(List.of())) {
      metrics.add(
          ordered(
              "type",
              "Pods",
              "pods",
              ordered(
                  "metric",
                  ordered("name", m.getName()),
                  "target",
                  ordered("type", "AverageValue", "averageValue", m.getAverageValue()))));
    }
    return metrics;
  }

  private static Map<String, Object> resource(String name, int percent) {
    return ordered(
        "type",
        "Resource",
        "resource",
        ordered(
            "name", name, "target", ordered("type", "Utilization", "averageUtilization", percent)));
  }

  /** A map in the order given: its text, and so the spec's digest, is the same in every JVM. */
  private static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  /**
   * Writes the autoscaler through common's {@link Applier} unless {@code cached} (the v1 informer's
   * copy) was written from the same desired object.
   *
   * @return true when something was written
   * @throws Applier.ForeignObjectException when an autoscaler of that name is someone else's
   */
  public static boolean ensure(
      KubernetesClient client, WebService ws, Optional<HorizontalPodAutoscaler> cached)
      throws Applier.ForeignObjectException {
    GenericKubernetesResource desired = desired(ws, apiVersion(client));
    // The object is the same in every version, and its metadata is all the applier reads of it.
    Optional<GenericKubernetesResource> live =
        cached.map(
            h ->
                new GenericKubernetesResourceBuilder()
                    .withApiVersion(desired.getApiVersion())
                    .withKind(KIND)
                    .withMetadata(h.getMetadata())
                    .build());
    Applier<WebService> applier =
        new Applier<>(
            client, ChildCache.none(), WebServiceOperator.NAME, WebServiceOperator.APPLIED_HASH);
    return applier.apply(ws, desired, live, (l, d) -> true) == Applier.Result.APPLIED;
  }
}
