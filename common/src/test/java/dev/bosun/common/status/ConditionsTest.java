package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {

  private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
  private static final Instant T1 = Instant.parse("2024-05-01T11:30:00Z");
  private static final Clock AT_T0 = Clock.fixed(T0, ZoneOffset.UTC);
  private static final Clock AT_T1 = Clock.fixed(T1, ZoneOffset.UTC);

  @Test
  void firstMergeStampsTheClockAndGeneration() {
    List<Condition> merged =
        Conditions.merge(
            null, List.of(DesiredCondition.isTrue("Ready", "Ready", "all good")), 3, AT_T0);

    assertThat(merged).hasSize(1);
    Condition ready = merged.get(0);
    assertThat(ready.getType()).isEqualTo("Ready");
    assertThat(ready.getStatus()).isEqualTo("True");
    assertThat(ready.getReason()).isEqualTo("Ready");
    assertThat(ready.getMessage()).isEqualTo("all good");
    assertThat(ready.getObservedGeneration()).isEqualTo(3L);
    assertThat(ready.getLastTransitionTime()).isEqualTo("2024-05-01T10:00:00Z");
  }

  @Test
  void transitionTimeIsTruncatedToSeconds() {
    Clock withNanos = Clock.fixed(Instant.parse("2024-05-01T10:00:00.987654321Z"), ZoneOffset.UTC);

    List<Condition> merged =
        Conditions.merge(null, List.of(DesiredCondition.isTrue("Ready", "R", "m")), 1, withNanos);

    assertThat(merged.get(0).getLastTransitionTime()).isEqualTo("2024-05-01T10:00:00Z");
  }

  @Test
  void keepsTransitionTimeWhenStatusUnchangedEvenIfReasonAndMessageChange() {
    List<Condition> first =
        Conditions.merge(
            null, List.of(DesiredCondition.isFalse("Ready", "Creating", "creating")), 1, AT_T0);

    List<Condition> second =
        Conditions.merge(
            first,
            List.of(DesiredCondition.isFalse("Ready", "RollingOut", "1 of 2 updated")),
            2,
            AT_T1);

    Condition ready = second.get(0);
    assertThat(ready.getLastTransitionTime()).isEqualTo("2024-05-01T10:00:00Z");
    assertThat(ready.getReason()).isEqualTo("RollingOut");
    assertThat(ready.getMessage()).isEqualTo("1 of 2 updated");
    assertThat(ready.getObservedGeneration()).isEqualTo(2L);
  }

  @Test
  void updatesTransitionTimeWhenStatusFlips() {
    List<Condition> first =
        Conditions.merge(
            null, List.of(DesiredCondition.isFalse("Ready", "Creating", "creating")), 1, AT_T0);

    List<Condition> second =
        Conditions.merge(
            first, List.of(DesiredCondition.isTrue("Ready", "Ready", "ready")), 1, AT_T1);

    assertThat(second.get(0).getStatus()).isEqualTo("True");
    assertThat(second.get(0).getLastTransitionTime()).isEqualTo("2024-05-01T11:30:00Z");
  }

  @Test
  void flipToUnknownIsATransition() {
    List<Condition> first =
        Conditions.merge(null, List.of(DesiredCondition.isTrue("Ready", "R", "m")), 1, AT_T0);

    List<Condition> second =
        Conditions.merge(
            first,
            List.of(new DesiredCondition("Ready", DesiredCondition.UNKNOWN, "Lost", "m")),
            1,
            AT_T1);

    assertThat(second.get(0).getLastTransitionTime()).isEqualTo("2024-05-01T11:30:00Z");
  }

  @Test
  void previousConditionWithoutTransitionTimeGetsTheClock() {
    Condition stored =
        new ConditionBuilder().withType("Ready").withStatus("True").withReason("R").build();

    List<Condition> merged =
        Conditions.merge(
            List.of(stored), List.of(DesiredCondition.isTrue("Ready", "R", "m")), 1, AT_T1);

    assertThat(merged.get(0).getLastTransitionTime()).isEqualTo("2024-05-01T11:30:00Z");
  }

  @Test
  void oneEntryPerTypeInTheDesiredOrderRegardlessOfStoredOrder() {
    List<Condition> stored =
        List.of(
            condition("Degraded", "False", "2024-01-01T00:00:00Z"),
            condition("Obsolete", "True", "2024-01-01T00:00:00Z"),
            condition("Ready", "True", "2024-02-02T00:00:00Z"));

    List<Condition> merged =
        Conditions.merge(
            stored,
            List.of(
                DesiredCondition.isTrue("Ready", "Ready", "ok"),
                DesiredCondition.isFalse("Progressing", "RolloutComplete", "done"),
                DesiredCondition.isFalse("Degraded", "AsExpected", "fine")),
            7,
            AT_T1);

    assertThat(merged)
        .extracting(Condition::getType)
        .containsExactly("Ready", "Progressing", "Degraded");
    assertThat(merged)
        .extracting(Condition::getLastTransitionTime)
        .containsExactly("2024-02-02T00:00:00Z", "2024-05-01T11:30:00Z", "2024-01-01T00:00:00Z");
    assertThat(merged).extracting(Condition::getObservedGeneration).containsOnly(7L);
  }

  @Test
  void transitionTimeIsLookedUpByTypeNotPosition() {
    List<Condition> stored =
        List.of(
            condition("Degraded", "True", "2024-01-01T00:00:00Z"),
            condition("Ready", "False", "2024-02-02T00:00:00Z"));

    List<Condition> merged =
        Conditions.merge(
            stored,
            List.of(
                DesiredCondition.isFalse("Ready", "Broken", "m"),
                DesiredCondition.isFalse("Degraded", "AsExpected", "m")),
            1,
            AT_T1);

    assertThat(merged.get(0).getLastTransitionTime()).isEqualTo("2024-02-02T00:00:00Z");
    assertThat(merged.get(1).getLastTransitionTime()).isEqualTo("2024-05-01T11:30:00Z");
  }

  @Test
  void mergingTheSameStateTwiceGivesEqualConditions() {
    List<DesiredCondition> desired =
        List.of(
            DesiredCondition.isTrue("Ready", "Ready", "ok"),
            DesiredCondition.isFalse("Degraded", "AsExpected", "fine"));
    List<Condition> first = Conditions.merge(null, desired, 4, AT_T0);

    List<Condition> second = Conditions.merge(first, desired, 4, AT_T1);

    assertThat(second).isEqualTo(first);
  }

  @Test
  void nullMessageBecomesEmpty() {
    List<Condition> merged =
        Conditions.merge(null, List.of(DesiredCondition.isTrue("Ready", "R", null)), 1, AT_T0);

    assertThat(merged.get(0).getMessage()).isEmpty();
  }

  @Test
  void findReturnsTheConditionOfTheType() {
    List<Condition> stored =
        List.of(
            condition("Ready", "True", "2024-01-01T00:00:00Z"),
            condition("Degraded", "False", "2024-01-01T00:00:00Z"));

    assertThat(Conditions.find(stored, "Degraded")).get().isSameAs(stored.get(1));
    assertThat(Conditions.find(stored, "Progressing")).isEmpty();
    assertThat(Conditions.find(null, "Ready")).isEmpty();
    assertThat(Conditions.find(List.of(), "Ready")).isEmpty();
  }

  @Test
  void isTrueOnlyForStatusTrue() {
    List<Condition> stored =
        List.of(
            condition("Ready", "True", "2024-01-01T00:00:00Z"),
            condition("Degraded", "False", "2024-01-01T00:00:00Z"),
            condition("Progressing", "Unknown", "2024-01-01T00:00:00Z"));

    assertThat(Conditions.isTrue(stored, "Ready")).isTrue();
    assertThat(Conditions.isTrue(stored, "Degraded")).isFalse();
    assertThat(Conditions.isTrue(stored, "Progressing")).isFalse();
    assertThat(Conditions.isTrue(stored, "Missing")).isFalse();
    assertThat(Conditions.isTrue(null, "Ready")).isFalse();
  }

  private static Condition condition(String type, String status, String transition) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason("Old")
        .withMessage("old")
        .withLastTransitionTime(transition)
        .withObservedGeneration(1L)
        .build();
  }

  @Test
  void sameStatusAndReasonComparesOneTypeOnly() {
    Condition readyTrue =
        new io.fabric8.kubernetes.api.model.ConditionBuilder()
            .withType("Ready")
            .withStatus("True")
            .withReason("Ready")
            .withMessage("a")
            .build();
    Condition readyTrueOtherMessage =
        new io.fabric8.kubernetes.api.model.ConditionBuilder(readyTrue).withMessage("b").build();
    Condition readyFalse =
        new io.fabric8.kubernetes.api.model.ConditionBuilder(readyTrue)
            .withStatus("False")
            .withReason("RollingOut")
            .build();
    Condition degraded =
        new io.fabric8.kubernetes.api.model.ConditionBuilder()
            .withType("Degraded")
            .withStatus("True")
            .withReason("X")
            .build();

    assertThat(
            Conditions.sameStatusAndReason(
                List.of(readyTrue), List.of(readyTrueOtherMessage, degraded), "Ready"))
        .isTrue();
    assertThat(Conditions.sameStatusAndReason(List.of(readyTrue), List.of(readyFalse), "Ready"))
        .isFalse();
    assertThat(Conditions.sameStatusAndReason(null, List.of(readyTrue), "Ready")).isFalse();
    assertThat(Conditions.sameStatusAndReason(List.of(degraded), List.of(degraded), "Ready"))
        .isFalse();
  }

  @Test
  void carriesAStoredConditionAsItIsOrFallsBack() {
    List<Condition> stored =
        Conditions.merge(
            null, List.of(DesiredCondition.isFalse("Scaling", "AtSize", "3 members")), 1, AT_T0);
    DesiredCondition otherwise = DesiredCondition.isUnknown("Scaling", "NotObserved", "not yet");

    assertThat(Conditions.carried(stored, "Scaling", otherwise))
        .isEqualTo(DesiredCondition.isFalse("Scaling", "AtSize", "3 members"));
    assertThat(
            Conditions.carried(
                stored,
                "Upgrading",
                DesiredCondition.isUnknown("Upgrading", "NotObserved", "not yet")))
        .isEqualTo(DesiredCondition.isUnknown("Upgrading", "NotObserved", "not yet"));
    assertThat(Conditions.carried(null, "Scaling", otherwise)).isEqualTo(otherwise);
  }

  @Test
  void generationIsZeroUntilTheServerAssignsOne() {
    var owner = new ConfigMap();
    owner.setMetadata(new ObjectMeta());
    assertThat(Conditions.generationOf(owner)).isZero();
    owner.getMetadata().setGeneration(7L);
    assertThat(Conditions.generationOf(owner)).isEqualTo(7L);
  }
}
