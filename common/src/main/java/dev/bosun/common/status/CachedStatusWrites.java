package dev.bosun.common.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
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
   * Writes {@code newStatus} when it differs from the resource's, under the controller's field
   * manager and without an optimistic lock (the status is derived from what was observed, so the
   * latest write is the right one), but only onto this very resource: a JSON patch whose first
   * operation tests the UID. A reconcile still running for a resource deleted meanwhile must not
   * write its status onto a new resource created under the same name (a GitOps replace): the status
   * subresource ignores any metadata a write carries, a UID included, so only a test against the
   * stored object catches it. Only the status is touched, so the writer owns nothing else and a
   * user's own apply can still remove a label.
   *
   * @return true when something was written
   */
  public static <S, P extends CustomResource<?, S>> boolean applyIfChanged(
      P resource, S newStatus, Context<P> context) {
    if (StatusEquality.sameStatus(resource.getStatus(), newStatus)) {
      return false;
    }
    write(resource, newStatus, context);
    resource.setStatus(newStatus);
    return true;
  }

  /**
   * Writes {@code newStatus} as {@link #applyIfChanged} does but whether or not it differs, and
   * leaves {@code resource} as it was: for a record that must be stored before an action, which a
   * failed write stops.
   *
   * @return the resource as written
   */
  public static <S, P extends CustomResource<?, S>> P write(
      P resource, S newStatus, Context<P> context) {
    P written =
        context
            .getClient()
            .resource(resource)
            .subresource("status")
            .patch(
                new PatchContext.Builder()
                    .withPatchType(PatchType.JSON)
                    .withFieldManager(context.getControllerConfiguration().fieldManager())
                    .build(),
                statusPatch(resource.getMetadata().getUid(), newStatus));
    remember(context, written, resource);
    return written;
  }

  /** The JSON patch: the UID tested (when known), then the whole status put in place. */
  static String statusPatch(String uid, Object newStatus) {
    ArrayNode ops = JsonNodeFactory.instance.arrayNode();
    if (uid != null) {
      ops.addObject().put("op", "test").put("path", "/metadata/uid").put("value", uid);
    }
    JsonNode status = Serialization.jsonMapper().valueToTree(newStatus);
    ops.addObject().put("op", "add").put("path", "/status").set("value", status);
    return ops.toString();
  }

  /** Hands a primary this reconcile wrote some other way (a merge patch) to JOSDK's cache. */
  public static <P extends HasMetadata> void remember(Context<P> context, P written, P previous) {
    context
        .eventSourceRetriever()
        .getControllerEventSource()
        .handleRecentResourceUpdate(ResourceID.fromResource(written), written, previous);
  }
}
