package dev.bosun.common.status;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.Map;

/**
 * Writes a status only when it differs from the stored one, so a converged resource causes no
 * writes (and no watch events for anyone else).
 */
public final class StatusRecorder {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private StatusRecorder() {}

  /**
   * True when both statuses serialize to the same JSON; absent fields equal null ones, and a null
   * status equals an empty one, in either order.
   */
  public static boolean sameStatus(Object a, Object b) {
    return json(a).equals(json(b));
  }

  private static JsonNode json(Object status) {
    return status == null
        ? SERIALIZATION.convertValue(Map.of(), JsonNode.class)
        : SERIALIZATION.convertValue(status, JsonNode.class);
  }

  /**
   * Sets {@code newStatus} on the resource and asks JOSDK to patch it, or asks for nothing when the
   * resource already carries that status.
   */
  public static <S, P extends CustomResource<?, S>> UpdateControl<P> patchIfChanged(
      P resource, S newStatus) {
    return prepare(resource, newStatus)
        ? UpdateControl.patchStatus(resource)
        : UpdateControl.noUpdate();
  }

  /**
   * The same for a failed reconcile: the status is patched only when it changed; either way JOSDK's
   * bounded retry stays on.
   */
  public static <S, P extends CustomResource<?, S>> ErrorStatusUpdateControl<P> patchErrorIfChanged(
      P resource, S newStatus) {
    return prepare(resource, newStatus)
        ? ErrorStatusUpdateControl.patchStatus(resource)
        : ErrorStatusUpdateControl.defaultErrorProcessing();
  }

  /** Sets the status for a patch, or says there is nothing to write. */
  private static <S, P extends CustomResource<?, S>> boolean prepare(P resource, S newStatus) {
    if (sameStatus(resource.getStatus(), newStatus)) {
      return false;
    }
    resource.setStatus(newStatus);
    // The status is derived from what was observed, so the latest write is the right one: no
    // optimistic lock, which would only turn a slightly older cached view into a failed
    // reconcile and a retry.
    resource.getMetadata().setResourceVersion(null);
    return true;
  }
}
