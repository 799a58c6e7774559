package dev.bosun.etcd.chaos;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The operator's requests to the API server it may die at, by name: "before" the request is sent or
 * "after" it was (the next one is not). Each name is a target of the nemesis' "operator dies at"
 * fault; the predicate reads the request line the operator's {@code ApiCut} sees ("METHOD /path").
 */
final class ApiBoundaries {

  private static final Map<String, Predicate<String>> REQUESTS = new LinkedHashMap<>();

  static {
    REQUESTS.put("creating a member Pod", r -> r.startsWith("POST ") && r.endsWith("/pods"));
    REQUESTS.put("deleting a member Pod", r -> r.startsWith("DELETE ") && r.contains("/pods/"));
    REQUESTS.put(
        "creating a volume", r -> r.startsWith("POST ") && r.endsWith("/persistentvolumeclaims"));
    REQUESTS.put(
        "stamping or retaining a volume",
        r -> r.startsWith("PATCH ") && r.contains("/persistentvolumeclaims/"));
    REQUESTS.put(
        "deleting a volume",
        r -> r.startsWith("DELETE ") && r.contains("/persistentvolumeclaims/"));
    REQUESTS.put(
        "writing the status",
        r -> (r.startsWith("PATCH ") || r.startsWith("PUT ")) && r.endsWith("/status"));
  }

  /** Every boundary: "before …" and "after …" each request. */
  static final List<String> ALL =
      REQUESTS.keySet().stream()
          .flatMap(name -> List.of("before " + name, "after " + name).stream())
          .toList();

  private ApiBoundaries() {}

  /** Whether the cut happens before the request is sent ({@code "before …"}). */
  static boolean before(String boundary) {
    return boundary.startsWith("before ");
  }

  /** The requests the boundary named {@code boundary} cuts at. */
  static Predicate<String> request(String boundary) {
    Predicate<String> p = REQUESTS.get(boundary.substring(boundary.indexOf(' ') + 1));
    if (p == null) {
      throw new IllegalArgumentException("no such boundary: " + boundary);
    }
    return p;
  }
}
