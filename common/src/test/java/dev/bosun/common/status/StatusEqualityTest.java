package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusEqualityTest {

  /** A status without equals(), like the generated ones: only its JSON can be compared. */
  public static class WidgetStatus {
    private Long observedGeneration;
    private String phase;
    private List<Condition> conditions;

    public Long getObservedGeneration() {
      return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
      this.observedGeneration = observedGeneration;
    }

    public String getPhase() {
      return phase;
    }

    public void setPhase(String phase) {
      this.phase = phase;
    }

    public List<Condition> getConditions() {
      return conditions;
    }

    public void setConditions(List<Condition> conditions) {
      this.conditions = conditions;
    }
  }

  public static class WidgetSpec {
    private String size;

    public String getSize() {
      return size;
    }

    public void setSize(String size) {
      this.size = size;
    }
  }

  @Group("test.bosun.dev")
  @Version("v1")
  public static class Widget extends CustomResource<WidgetSpec, WidgetStatus>
      implements Namespaced {}

  @Test
  void equalContentBuiltSeparatelyIsTheSameStatus() {
    WidgetStatus a = status(3L, "Running", "True", "2024-01-01T00:00:00Z");
    WidgetStatus b = status(3L, "Running", "True", "2024-01-01T00:00:00Z");

    assertThat(a).isNotSameAs(b).isNotEqualTo(b); // no equals(): only the JSON matches
    assertThat(StatusEquality.sameStatus(a, b)).isTrue();
    assertThat(StatusEquality.sameStatus(b, a)).isTrue();
  }

  @Test
  void aScalarFieldThatDiffersIsADifferentStatus() {
    WidgetStatus a = status(3L, "Running", "True", "2024-01-01T00:00:00Z");

    assertThat(StatusEquality.sameStatus(a, status(4L, "Running", "True", "2024-01-01T00:00:00Z")))
        .isFalse();
    assertThat(StatusEquality.sameStatus(a, status(3L, "Pending", "True", "2024-01-01T00:00:00Z")))
        .isFalse();
  }

  @Test
  void aFieldInsideAConditionThatDiffersIsADifferentStatus() {
    WidgetStatus a = status(3L, "Running", "True", "2024-01-01T00:00:00Z");

    assertThat(StatusEquality.sameStatus(a, status(3L, "Running", "False", "2024-01-01T00:00:00Z")))
        .isFalse();
    assertThat(StatusEquality.sameStatus(a, status(3L, "Running", "True", "2024-01-01T00:00:01Z")))
        .isFalse();
  }

  @Test
  void conditionOrderMatters() {
    WidgetStatus a = new WidgetStatus();
    a.setConditions(List.of(condition("Ready", "True", "t"), condition("Degraded", "False", "t")));
    WidgetStatus b = new WidgetStatus();
    b.setConditions(List.of(condition("Degraded", "False", "t"), condition("Ready", "True", "t")));

    assertThat(StatusEquality.sameStatus(a, b)).isFalse();
  }

  @Test
  void aNullFieldEqualsAnAbsentOne() {
    WidgetStatus withNulls = new WidgetStatus();
    withNulls.setPhase("Running");
    withNulls.setObservedGeneration(null);
    WidgetStatus sparse = new WidgetStatus();
    sparse.setPhase("Running");

    assertThat(StatusEquality.sameStatus(withNulls, sparse)).isTrue();
  }

  @Test
  void nullAndNullAreTheSame() {
    assertThat(StatusEquality.sameStatus(null, null)).isTrue();
  }

  @Test
  void noStoredStatusEqualsAnEmptyNewOne() {
    assertThat(StatusEquality.sameStatus(null, new WidgetStatus())).isTrue();
    assertThat(StatusEquality.sameStatus(new WidgetStatus(), null)).isTrue();
  }

  @Test
  void noStoredStatusDiffersFromANonEmptyNewOne() {
    WidgetStatus status = new WidgetStatus();
    status.setPhase("Running");

    assertThat(StatusEquality.sameStatus(null, status)).isFalse();
    assertThat(StatusEquality.sameStatus(status, null)).isFalse();
  }

  private static WidgetStatus status(
      Long generation, String phase, String readyStatus, String transition) {
    WidgetStatus status = new WidgetStatus();
    status.setObservedGeneration(generation);
    status.setPhase(phase);
    status.setConditions(new ArrayList<>(List.of(condition("Ready", readyStatus, transition))));
    return status;
  }

  private static Condition condition(String type, String status, String transition) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason("Because")
        .withMessage("a message")
        .withLastTransitionTime(transition)
        .build();
  }
}
