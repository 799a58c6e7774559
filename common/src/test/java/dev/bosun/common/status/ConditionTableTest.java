package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionTableTest {

  private static final Clock AT_T0 =
      Clock.fixed(Instant.parse("2026-11-27T10:00:00Z"), ZoneOffset.UTC);
  private static final Clock AT_T1 =
      Clock.fixed(Instant.parse("2026-11-27T11:00:00Z"), ZoneOffset.UTC);

  /** The facts of a toy resource: how many of how many replicas are up. */
  record Counts(int up, int wanted) {}

  static DesiredCondition ready(Counts c) {
    return c.up() == c.wanted()
        ? DesiredCondition.isTrue(
            "Ready", "AllUp", HumanText.format("{} of {} up", c.up(), c.wanted()))
        : DesiredCondition.isFalse(
            "Ready", "Starting", HumanText.format("{} of {} up", c.up(), c.wanted()));
  }

  static DesiredCondition degraded(Counts c) {
    return DesiredCondition.of("Degraded", c.up() == 0, c.up() == 0 ? "NoneUp" : "AsExpected", "");
  }

  static final ConditionTable<Counts> TABLE =
      ConditionTable.<Counts>builder()
          .row("Ready", ConditionTableTest::ready)
          .row("Degraded", ConditionTableTest::degraded)
          .build();

  @Test
  void decidesEveryRowInTheTablesOrder() {
    assertThat(TABLE.types()).containsExactly("Ready", "Degraded");
    assertThat(TABLE.decide(new Counts(0, 2)))
        .containsExactly(
            DesiredCondition.isFalse("Ready", "Starting", "0 of 2 up"),
            DesiredCondition.isTrue("Degraded", "NoneUp", ""));
  }

  @Test
  void keepsTheTransitionTimeOfAConditionWhoseStatusStays() {
    ConfigMap owner =
        new ConfigMapBuilder().withNewMetadata().withGeneration(4L).endMetadata().build();
    List<Condition> first = TABLE.conditions(new Counts(1, 2), null, owner, AT_T0);
    List<Condition> second = TABLE.conditions(new Counts(2, 2), first, owner, AT_T1);

    assertThat(second.get(0).getLastTransitionTime()).isEqualTo("2026-11-27T11:00:00Z");
    assertThat(second.get(0).getMessage()).isEqualTo("2 of 2 up");
    assertThat(second.get(1).getLastTransitionTime()).isEqualTo("2026-11-27T10:00:00Z");
    assertThat(second).allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(4L));
  }

  @Test
  void anOwnerWithoutGenerationIsGenerationZero() {
    ConfigMap owner = new ConfigMapBuilder().withNewMetadata().endMetadata().build();
    assertThat(TABLE.conditions(new Counts(1, 1), null, owner, AT_T0))
        .allSatisfy(c -> assertThat(c.getObservedGeneration()).isZero());
  }

  @Test
  void aRuleAnsweringForAnotherTypeIsAMistakeInTheTable() {
    ConditionTable<Counts> wrong =
        ConditionTable.<Counts>builder().row("Available", ConditionTableTest::ready).build();

    assertThatThrownBy(() -> wrong.decide(new Counts(1, 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Available");
  }

  @Test
  void aTypeAppearsOnce() {
    assertThatThrownBy(
            () ->
                ConditionTable.<Counts>builder()
                    .row("Ready", ConditionTableTest::ready)
                    .row("Ready", ConditionTableTest::ready))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
