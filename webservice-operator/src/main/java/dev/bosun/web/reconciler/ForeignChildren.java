package dev.bosun.web.reconciler;

import dev.bosun.common.meta.OwnerReferences;
import dev.bosun.web.dependent.Deployments;
import dev.bosun.web.dependent.DisruptionBudgets;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.net.HttpURLConnection;
import java.util.Optional;

/**
 * Children a WebService would create whose name someone else's object already has. Bosun never
 * takes over or overwrites such an object: each finding is a message naming it.
 */
final class ForeignChildren {

  private ForeignChildren() {}

  /**
   * The first child the WebService would create that already exists and belongs to someone else.
   * The Deployment is left to its guarded create ({@link #takenDeployment}); the others are looked
   * up, and only while the cache has none of ours: a 1.20 API server fails that guard on Services,
   * and autoscalers, Ingresses and budgets are rare.
   */
  static Optional<String> find(WebService ws, Context<WebService> context) {
    return service(ws, context)
        .or(() -> autoscaler(ws, context))
        .or(() -> canaryDeployment(ws, context))
        .or(() -> ingress(ws, context))
        .or(() -> budget(ws, context.getClient()));
  }

  /**
   * The conflict message when the Deployment's create was refused because its name is taken by a
   * Deployment someone else owns. JOSDK creates it by server-side apply with a resourceVersion
   * precondition, which fails on any existing object, so a new WebService costs no read to find
   * out; the read is paid only here, when the create was refused.
   */
  static Optional<String> takenDeployment(
      WebService ws, AggregatedOperatorException e, Context<WebService> context) {
    boolean refusedCreate =
        e.getAggregatedExceptions().values().stream().anyMatch(ForeignChildren::conflict);
    if (!refusedCreate || Deployments.stable(ws, context).isPresent()) {
      return Optional.empty();
    }
    return foreign(
        ws,
        context
            .getClient()
            .apps()
            .deployments()
            .inNamespace(namespace(ws))
            .withName(name(ws))
            .get(),
        "Deployment");
  }

  private static Optional<String> service(WebService ws, Context<WebService> context) {
    if (context.getSecondaryResource(Service.class).isPresent()) {
      return Optional.empty();
    }
    KubernetesClient client = context.getClient();
    return foreign(
        ws, client.services().inNamespace(namespace(ws)).withName(name(ws)).get(), "Service");
  }

  private static Optional<String> autoscaler(WebService ws, Context<WebService> context) {
    if (ws.getSpec().getAutoscaling() == null
        || context.getSecondaryResource(HorizontalPodAutoscaler.class).isPresent()) {
      return Optional.empty();
    }
    var autoscalers = context.getClient().autoscaling().v1().horizontalPodAutoscalers();
    return foreign(
        ws,
        autoscalers.inNamespace(namespace(ws)).withName(name(ws)).get(),
        "HorizontalPodAutoscaler");
  }

  private static Optional<String> canaryDeployment(WebService ws, Context<WebService> context) {
    if (GrayRelease.canary(ws).isEmpty() || Deployments.canary(ws, context).isPresent()) {
      return Optional.empty();
    }
    var deployments = context.getClient().apps().deployments();
    return foreign(
        ws,
        deployments.inNamespace(namespace(ws)).withName(Deployments.canaryName(ws)).get(),
        "Deployment");
  }

  private static Optional<String> ingress(WebService ws, Context<WebService> context) {
    if (ws.getSpec().getIngress() == null
        || context.getSecondaryResource(Ingress.class).isPresent()) {
      return Optional.empty();
    }
    var ingresses = context.getClient().network().v1().ingresses();
    return foreign(ws, ingresses.inNamespace(namespace(ws)).withName(name(ws)).get(), "Ingress");
  }

  private static Optional<String> budget(WebService ws, KubernetesClient client) {
    if (DisruptionBudgets.desired(ws).isEmpty()) {
      return Optional.empty();
    }
    return foreign(ws, ChildWrites.budget(ws, client).get(), "PodDisruptionBudget");
  }

  private static boolean conflict(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof KubernetesClientException k
          && k.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return true;
      }
    }
    return false;
  }

  /** The message for {@code existing} when it is not the WebService's own; empty otherwise. */
  static Optional<String> foreign(WebService ws, HasMetadata existing, String kind) {
    if (existing == null || OwnerReferences.isControlledBy(existing, ws)) {
      return Optional.empty();
    }
    return Optional.of(
        kind
            + " "
            + existing.getMetadata().getName()
            + " already exists and is not managed by this WebService; rename the WebService or"
            + " delete that "
            + kind);
  }

  private static String namespace(WebService ws) {
    return ws.getMetadata().getNamespace();
  }

  private static String name(WebService ws) {
    return ws.getMetadata().getName();
  }
}
