package dev.bosun.common.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * Status writes whose result goes into JOSDK's primary cache at once (what JOSDK's
 * PrimaryUpdateAndCacheUtils does for its own patches), so the next reconcile starts from what this
 * one wrote even before the watch delivers it. JOSDK 5.2.3 does not cache a status patch returned
 * through {@code UpdateControl}; reconcilers that keep state in their status write it here and
 * trust the primary they are handed, instead of paying a GET per reconcile. The operator must parse
 * resource versions ({@code withParseResourceVersions(true)}), so a later write replaces an earlier
 * one in the cache even before the informer has seen either.
 */
public final class CachedStatusWrites {

  private CachedStatusWrites() {}

  /**
   * Server-side applies {@code newStatus} when it differs from the resource's, under the
   * controller's field manager and without an optimistic lock (the status is derived from what was
   * observed, so the latest write is the right one).
   *
   * @return true when something was written
   */
  public static <S, P extends CustomResource<?, S>> boolean applyIfChanged(
      P resource, S newStatus, Context<P> context) {
    if (StatusEquality.sameStatus(resource.getStatus(), newStatus)) {
      return false;
    }
    P previous = resource;
    P desired = statusOnly(resource, newStatus);
    P written =
        context
            .getClient()
            .resource(desired)
            .subresource("status")
            .patch(
                new PatchContext.Builder()
                    .withPatchType(PatchType.SERVER_SIDE_APPLY)
                    .withFieldManager(context.getControllerConfiguration().fieldManager())
                    .withForce(true)
                    .build());
    remember(context, written, previous);
    resource.setStatus(newStatus);
    return true;
  }

  /**
   * The apply's body: the resource's name and the new status, nothing else. The status endpoint
   * keeps everything but the status from the stored object anyway; the whole object would make the
   * API server read and compare its spec on every status write, and on a 1.20 server (whose
   * managedFields do not tell subresources apart) would make the status writer co-own the labels,
   * annotations and spec, so a user's own apply could no longer remove them.
   */
  private static <S, P extends CustomResource<?, S>> P statusOnly(P resource, S newStatus) {
    P body;
    try {
      @SuppressWarnings("unchecked")
      Class<P> type = (Class<P>) resource.getClass();
      body = type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          resource.getClass().getName() + " has no public no-argument constructor", e);
    }
    body.setMetadata(
        new ObjectMetaBuilder()
            .withName(resource.getMetadata().getName())
            .withNamespace(resource.getMetadata().getNamespace())
            .build());
    body.setSpec(null);
    body.setStatus(newStatus);
    return body;
  }

  /** Hands a primary this reconcile wrote some other way (a merge patch) to JOSDK's cache. */
  public static <P extends HasMetadata> void remember(Context<P> context, P written, P previous) {
    context
        .eventSourceRetriever()
        .getControllerEventSource()
        .handleRecentResourceUpdate(ResourceID.fromResource(written), written, previous);
  }
}
