package dev.bosun.common.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmissionReviewsTest {

  private final ObjectMapper json = new ObjectMapper();
  private final List<String> seen = new ArrayList<>();

  /** Refuses a replicas above 3, and a size that shrinks (it needs the stored object). */
  private final AdmissionRules<GenericKubernetesResource> rules =
      (object, old) -> {
        seen.add(old == null ? "create" : "update");
        List<String> problems = new ArrayList<>();
        int replicas = ((Number) object.get("spec", "replicas")).intValue();
        if (replicas > 3) {
          problems.add("spec.replicas " + replicas + " is above 3");
        }
        if (old != null && replicas < ((Number) old.get("spec", "replicas")).intValue()) {
          problems.add("spec.replicas cannot shrink");
        }
        return problems;
      };

  private JsonNode review(String apiVersion, String operation, Integer replicas, Integer old)
      throws Exception {
    String object = replicas == null ? "null" : object(replicas);
    String oldObject = old == null ? "null" : object(old);
    return json.readTree(
        ("{'apiVersion':'%s','kind':'AdmissionReview','request':{'uid':'u-1','operation':'%s',"
                + "'object':%s,'oldObject':%s}}")
            .formatted(apiVersion, operation, object, oldObject)
            .replace('\'', '"'));
  }

  private static String object(int replicas) {
    return "{'apiVersion':'x.dev/v1','kind':'Thing','metadata':{'name':'a'},'spec':{'replicas':%d}}"
        .formatted(replicas);
  }

  private JsonNode answer(JsonNode review) {
    return AdmissionReviews.answer(json, review, GenericKubernetesResource.class, rules);
  }

  @Test
  void aGoodObjectIsAllowedWithoutAStatus() throws Exception {
    JsonNode answer = answer(review("admission.k8s.io/v1", "CREATE", 2, null));

    assertThat(answer.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(answer.path("kind").asText()).isEqualTo("AdmissionReview");
    assertThat(answer.path("response").path("uid").asText()).isEqualTo("u-1");
    assertThat(answer.path("response").path("allowed").asBoolean()).isTrue();
    assertThat(answer.path("response").has("status")).isFalse();
    assertThat(seen).containsExactly("create");
  }

  @Test
  void aBadObjectIsDeniedWithEveryProblemInOneMessage() throws Exception {
    JsonNode answer = answer(review("admission.k8s.io/v1", "UPDATE", 5, 6));

    JsonNode response = answer.path("response");
    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("code").asInt()).isEqualTo(422);
    assertThat(response.path("status").path("message").asText())
        .isEqualTo("invalid spec: spec.replicas 5 is above 3; spec.replicas cannot shrink");
    assertThat(seen).containsExactly("update");
  }

  @Test
  void aV1beta1ReviewIsAnsweredInItsOwnVersion() throws Exception {
    JsonNode answer = answer(review("admission.k8s.io/v1beta1", "CREATE", 4, null));

    assertThat(answer.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1beta1");
    assertThat(answer.path("response").path("allowed").asBoolean()).isFalse();
  }

  @Test
  void anUpdateThatKeepsTheSpecIsAllowedEvenIfTheSpecBreaksARule() throws Exception {
    // An object stored before the rule existed must still take a label, or lose a finalizer.
    JsonNode answer = answer(review("admission.k8s.io/v1", "UPDATE", 5, 5));

    assertThat(answer.path("response").path("allowed").asBoolean()).isTrue();
    assertThat(seen).isEmpty();
  }

  @Test
  void aDeleteIsAllowedWithoutAskingTheRules() throws Exception {
    JsonNode answer = answer(review("admission.k8s.io/v1", "DELETE", null, 5));

    assertThat(answer.path("response").path("allowed").asBoolean()).isTrue();
    assertThat(seen).isEmpty();
  }

  @Test
  void anObjectTheOperatorCannotReadIsDeniedSayingSo() throws Exception {
    JsonNode review =
        json.readTree(
            "{\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":\"u-2\","
                + "\"operation\":\"CREATE\",\"object\":[1,2]}}");

    JsonNode answer = answer(review);

    assertThat(answer.path("response").path("allowed").asBoolean()).isFalse();
    assertThat(answer.path("response").path("status").path("message").asText())
        .startsWith("invalid spec: the operator could not read this GenericKubernetesResource");
  }
}
