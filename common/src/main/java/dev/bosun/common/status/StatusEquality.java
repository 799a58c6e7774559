package dev.bosun.common.status;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;

/**
 * Whether a new status is the stored one, so that {@link CachedStatusWrites} writes only what
 * changed: a converged resource causes no writes (and no watch events for anyone else).
 */
public final class StatusEquality {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private StatusEquality() {}

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
}
