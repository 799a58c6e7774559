package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;

/** Takes a one-shot request annotation off an object once the operator has acted on it. */
public final class RequestAnnotations {

  private static final PatchContext JSON_PATCH = PatchContext.of(PatchType.JSON);

  private RequestAnnotations() {}

  /**
   * Removes {@code key} from {@code resource} only while it still holds {@code value}: a person who
   * changed it meanwhile made a new request, which a plain removal would silently drop. One JSON
   * patch, a {@code test} before the {@code remove}; no read first and no resourceVersion, so the
   * operator's own status writes cannot make it conflict.
   *
   * @return true if the annotation was taken off, false if it was gone or held another value
   */
  public static boolean removeIfStill(
      Resource<? extends HasMetadata> resource, String key, String value) {
    try {
      resource.patch(JSON_PATCH, removeIfStillPatch(key, value));
      return true;
    } catch (KubernetesClientException e) {
      // 422: the test failed (another value, or no annotation at all); nothing to take off.
      if (e.getCode() == 422 || e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  /** The JSON patch (RFC 6902) that removes {@code key} if and only if it equals {@code value}. */
  static String removeIfStillPatch(String key, String value) {
    // RFC 6901: "~" and "/" in a key are escaped as "~0" and "~1", in that order.
    String path = "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1");
    return Serialization.asJson(
        List.of(
            Map.of("op", "test", "path", path, "value", value),
            Map.of("op", "remove", "path", path)));
  }
}
