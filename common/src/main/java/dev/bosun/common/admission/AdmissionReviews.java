package dev.bosun.common.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bosun.common.status.HumanMessages;
import java.util.List;
import java.util.Objects;

/**
 * The answer to one {@code AdmissionReview} (admission.k8s.io/v1, and v1beta1 in the same shape):
 * decodes the object and the one it replaces, asks the kind's rules, and allows it or denies it
 * with every problem in one message, the message the operator would put in status.
 */
public final class AdmissionReviews {

  /** What a denial's message starts with, as the {@code InvalidSpec} condition's does. */
  public static final String PREFIX = "invalid spec: ";

  private AdmissionReviews() {}

  /**
   * The response review to {@code review}: a CREATE or UPDATE is checked with {@code rules}; an
   * UPDATE that leaves the spec as it is (labels, annotations, finalizers) is always allowed, so an
   * object stored before a rule existed can still be changed by its controllers and deleted.
   */
  public static <T> ObjectNode answer(
      ObjectMapper json, JsonNode review, Class<T> type, AdmissionRules<T> rules) {
    JsonNode request = review.path("request");
    String operation = request.path("operation").asText("");
    List<String> problems;
    if (!operation.equals("CREATE") && !operation.equals("UPDATE")) {
      problems = List.of();
    } else if (operation.equals("UPDATE")
        && Objects.equals(
            request.path("object").get("spec"), request.path("oldObject").get("spec"))) {
      problems = List.of();
    } else {
      problems = problems(json, request, type, rules);
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("apiVersion", review.path("apiVersion").asText("admission.k8s.io/v1"));
    answer.put("kind", "AdmissionReview");
    ObjectNode response = answer.putObject("response");
    response.put("uid", request.path("uid").asText(""));
    response.put("allowed", problems.isEmpty());
    if (!problems.isEmpty()) {
      ObjectNode status = response.putObject("status");
      status.put("code", 422);
      status.put("reason", "Invalid");
      status.put("message", PREFIX + String.join("; ", problems));
    }
    return answer;
  }

  private static <T> List<String> problems(
      ObjectMapper json, JsonNode request, Class<T> type, AdmissionRules<T> rules) {
    T object;
    T old;
    try {
      object = json.treeToValue(request.path("object"), type);
      JsonNode stored = request.get("oldObject");
      old = stored == null || stored.isNull() ? null : json.treeToValue(stored, type);
    } catch (Exception e) {
      // The schema already passed, so this is the operator's own fault: refuse, saying so, rather
      // than store what it could not check.
      return List.of(
          "the operator could not read this "
              + type.getSimpleName()
              + " to check it ("
              + HumanMessages.describe(e)
              + ")");
    }
    return rules.problems(object, old);
  }
}
