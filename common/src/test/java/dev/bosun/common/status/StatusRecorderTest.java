package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusRecorderTest {

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
    assertThat(StatusRecorder.sameStatus(a, b)).isTrue();
    assertThat(StatusRecorder.sameStatus(b, a)).isTrue();
  }

  @Test
  void aScalarFieldThatDiffersIsADifferentStatus() {
    WidgetStatus a = status(3L, "Running", "True", "2024-01-01T00:00:00Z");

    assertThat(StatusRecorder.sameStatus(a, status(4L, "Running", "True", "2024-01-01T00:00:00Z")))
        .isFalse();
    assertThat(StatusRecorder.sameStatus(a, status(3L, "Pending", "True", "2024-01-01T00:00:00Z")))
        .isFalse();
  }

  @Test
  void aFieldInsideAConditionThatDiffersIsADifferentStatus() {
    WidgetStatus a = status(3L, "Running", "True", "2024-01-01T00:00:00Z");

    assertThat(StatusRecorder.sameStatus(a, status(3L, "Running", "False", "2024-01-01T00:00:00Z")))
        .isFalse();
    assertThat(StatusRecorder.sameStatus(a, status(3L, "Running", "True", "2024-01-01T00:00:01Z")))
        .isFalse();
  }

  @Test
  void conditionOrderMatters() {
    WidgetStatus a = new WidgetStatus();
    a.setConditions(List.of(condition("Ready", "True", "t"), condition("Degraded", "False", "t")));
    WidgetStatus b = new WidgetStatus();
    b.setConditions(List.of(condition("Degraded", "False", "t"), condition("Ready", "True", "t")));

    assertThat(StatusRecorder.sameStatus(a, b)).isFalse();
  }

  @Test
  void aNullFieldEqualsAnAbsentOne() {
    WidgetStatus withNulls = new WidgetStatus();
    withNulls.setPhase("Running");
    withNulls.setObservedGeneration(null);
    WidgetStatus sparse = new WidgetStatus();
    sparse.setPhase("Running");

    assertThat(StatusRecorder.sameStatus(withNulls, sparse)).isTrue();
  }

  @Test
  void nullAndNullAreTheSame() {
    assertThat(StatusRecorder.sameStatus(null, null)).isTrue();
  }

  @Test
  void noStoredStatusEqualsAnEmptyNewOne() {
    assertThat(StatusRecorder.sameStatus(null, new WidgetStatus())).isTrue();
    assertThat(StatusRecorder.sameStatus(new WidgetStatus(), null)).isTrue();
  }

  @Test
  void noStoredStatusDiffersFromANonEmptyNewOne() {
    WidgetStatus status = new WidgetStatus();
    status.setPhase("Running");

    assertThat(StatusRecorder.sameStatus(null, status)).isFalse();
    assertThat(StatusRecorder.sameStatus(status, null)).isFalse();
  }

  @Test
  void patchIfChangedAsksForNothingWhenTheStatusIsTheSame() {
    WidgetStatus stored = status(2L, "Running", "True", "2024-01-01T00:00:00Z");
    Widget widget = widget(stored);

    UpdateControl<Widget> control =
        StatusRecorder.patchIfChanged(
            widget, status(2L, "Running", "True", "2024-01-01T00:00:00Z"));

    assertThat(control.isNoUpdate()).isTrue();
    assertThat(control.isPatchStatus()).isFalse();
    assertThat(control.getResource()).isEmpty();
    assertThat(widget.getStatus()).isSameAs(stored);
  }

  @Test
  void patchIfChangedAsksForNothingWhenAnEmptyStatusMeetsNone() {
    Widget widget = widget(null);

    UpdateControl<Widget> control = StatusRecorder.patchIfChanged(widget, new WidgetStatus());

    assertThat(control.isNoUpdate()).isTrue();
  }

  @Test
  void patchIfChangedPatchesTheStatusWhenItDiffers() {
    Widget widget = widget(status(2L, "Pending", "False", "2024-01-01T00:00:00Z"));
    WidgetStatus next = status(2L, "Running", "True", "2024-01-01T00:05:00Z");

    UpdateControl<Widget> control = StatusRecorder.patchIfChanged(widget, next);

    assertThat(control.isPatchStatus()).isTrue();
    assertThat(control.isNoUpdate()).isFalse();
    assertThat(control.isPatchResource()).isFalse();
    assertThat(control.getResource()).containsSame(widget);
    assertThat(widget.getStatus()).isSameAs(next);
  }

  @Test
  void patchIfChangedPatchesTheFirstStatus() {
    Widget widget = widget(null);
    WidgetStatus first = status(1L, "Pending", "False", "2024-01-01T00:00:00Z");

    UpdateControl<Widget> control = StatusRecorder.patchIfChanged(widget, first);

    assertThat(control.isPatchStatus()).isTrue();
    assertThat(control.getResource()).get().extracting(Widget::getStatus).isSameAs(first);
  }

  @Test
  void aPatchCarriesNoResourceVersionSoAStaleCachedViewCannotFailIt() {
    Widget widget = widget(null);
    widget.getMetadata().setResourceVersion("41");

    UpdateControl<Widget> control =
        StatusRecorder.patchIfChanged(widget, status(1L, "Ready", "True", "2024-01-01T00:00:00Z"));

    assertThat(control.getResource())
        .get()
        .satisfies(w -> assertThat(w.getMetadata().getResourceVersion()).isNull());
  }

  @Test
  void anErrorStatusIsPatchedOnlyWhenItChangedAndRetriesStayOn() {
    WidgetStatus failing = status(1L, "Failing", "False", "2024-01-01T00:00:00Z");
    Widget widget = widget(null);
    widget.getMetadata().setResourceVersion("7");

    var first = StatusRecorder.patchErrorIfChanged(widget, failing);
    assertThat(first.getResource())
        .get()
        .satisfies(
            w -> {
              assertThat(w.getStatus()).isSameAs(failing);
              assertThat(w.getMetadata().getResourceVersion()).isNull();
            });
    assertThat(first.isNoRetry()).isFalse();

    var again =
        StatusRecorder.patchErrorIfChanged(
            widget(status(1L, "Failing", "False", "2024-01-01T00:00:00Z")),
            status(1L, "Failing", "False", "2024-01-01T00:00:00Z"));
    assertThat(again.getResource()).isEmpty();
    assertThat(again.isDefaultErrorProcessing()).isTrue();
  }

  private static Widget widget(WidgetStatus status) {
    Widget widget = new Widget();
    widget.setMetadata(new ObjectMetaBuilder().withName("w").withNamespace("ns").build());
    widget.setStatus(status);
    return widget;
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
