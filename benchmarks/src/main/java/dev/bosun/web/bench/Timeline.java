package dev.bosun.web.bench;

import dev.bosun.common.status.Conditions;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where a run's time went, from the objects' own timestamps (whole seconds): when each Deployment
 * was created, when it became available and, for WebServices, when they were created and when their
 * status said Ready. Printed as quantiles of each leg, so a slower run shows which leg grew.
 */
final class Timeline {

  private Timeline() {}

  /** One line per leg for the Deployments (and WebServices, if any) in {@code ns}. */
  static void print(KubernetesClient client, String ns, Instant start) {
    Map<String, Deployment> deployments =
        client.apps().deployments().inNamespace(ns).list().getItems().stream()
            .collect(Collectors.toMap(d -> d.getMetadata().getName(), Function.identity()));
    List<WebService> services =
        client.resources(WebService.class).inNamespace(ns).list().getItems();
    List<Long> created = new ArrayList<>();
    List<Long> available = new ArrayList<>();
    List<Long> wsToDeployment = new ArrayList<>();
    List<Long> availableToReady = new ArrayList<>();
    for (Deployment d : deployments.values()) {
      Instant c = createdAt(d);
      created.add(Duration.between(start, c).toSeconds());
      availableAt(d).ifPresent(a -> available.add(Duration.between(c, a).toSeconds()));
    }
    for (WebService ws : services) {
      Deployment d = deployments.get(ws.getMetadata().getName());
      if (d == null) {
        continue;
      }
      wsToDeployment.add(Duration.between(createdAt(ws), createdAt(d)).toSeconds());
      Optional<Instant> ready =
          ws.getStatus() == null
              ? Optional.empty()
              : Conditions.find(ws.getStatus().getConditions(), "Ready")
                  .filter(r -> "True".equals(r.getStatus()))
                  .map(Condition::getLastTransitionTime)
                  .map(Instant::parse);
      Optional<Instant> avail = availableAt(d);
      if (ready.isPresent() && avail.isPresent()) {
        availableToReady.add(Duration.between(avail.get(), ready.get()).toSeconds());
      }
    }
    System.out.printf("      Deployment created, s after start: %s%n", quantiles(created));
    if (!services.isEmpty()) {
      System.out.printf(
          "      WebService created to its Deployment created, s: %s%n", quantiles(wsToDeployment));
    }
    System.out.printf("      Deployment created to available, s: %s%n", quantiles(available));
    if (!services.isEmpty()) {
      System.out.printf(
          "      Deployment available to WebService Ready, s: %s%n", quantiles(availableToReady));
    }
  }

  private static Instant createdAt(HasMetadata o) {
    return Instant.parse(o.getMetadata().getCreationTimestamp());
  }

  private static Optional<Instant> availableAt(Deployment d) {
    if (d.getStatus() == null || d.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return d.getStatus().getConditions().stream()
        .filter(c -> "Available".equals(c.getType()) && "True".equals(c.getStatus()))
        .map(DeploymentCondition::getLastTransitionTime)
        .map(Instant::parse)
        .findFirst();
  }

  private static String quantiles(List<Long> values) {
    if (values.isEmpty()) {
      return "none";
    }
    List<Long> v = new ArrayList<>(values);
    Collections.sort(v);
    return String.format(
        "min %d, p10 %d, p50 %d, p90 %d, max %d (n=%d)",
        v.get(0),
        v.get(v.size() / 10),
        v.get(v.size() / 2),
        v.get(v.size() * 9 / 10),
        v.get(v.size() - 1),
        v.size());
  }
}
