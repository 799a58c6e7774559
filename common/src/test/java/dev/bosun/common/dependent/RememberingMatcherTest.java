package dev.bosun.common.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class RememberingMatcherTest {

  private static final String OPERATOR = OwnedChildren.OPERATOR;
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private final RememberingMatcher<Deployment> matcher = new RememberingMatcher<>();
  private final AtomicInteger comparisons = new AtomicInteger();

  private static Deployment actual(UnaryOperator<DeploymentBuilder> change) {
    return OwnedChildren.deployment(change);
  }

  private static Deployment desired(int replicas) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("shop")
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .endSpec()
        .build();
  }

  private boolean match(Deployment actual, Deployment desired, boolean answer) {
    return matcher.remembered(
        actual,
        desired,
        OPERATOR,
        JSON,
        () -> {
          comparisons.incrementAndGet();
          return answer;
        });
  }

  @Test
  void aStatusOnlyChangeIsNotComparedAgain() {
    assertThat(match(actual(b -> b), desired(2), true)).isTrue();
    Deployment statusUpdate = OwnedChildren.rolledOut();
    assertThat(match(statusUpdate, desired(2), true)).isTrue();
    assertThat(comparisons).hasValue(1);
  }

  @Test
  void aNewGenerationLabelsOwnFieldsOrDesiredObjectAreComparedAgain() {
    match(actual(b -> b), desired(2), true);
    match(actual(b -> b.editMetadata().withGeneration(2L).endMetadata()), desired(2), true);
    assertThat(comparisons).hasValue(2);
    match(
        actual(b -> b.editMetadata().withGeneration(2L).addToLabels("x", "y").endMetadata()),
        desired(2),
        true);
    assertThat(comparisons).hasValue(3);
    match(
        actual(b -> b.editMetadata().withGeneration(2L).addToLabels("x", "y").endMetadata()),
        desired(3),
        false);
    assertThat(comparisons).hasValue(4);
    Deployment fieldTakenOver =
        actual(
            b ->
                b.editMetadata()
                    .withGeneration(2L)
                    .addToLabels("x", "y")
                    .editFirstManagedField()
                    .withFieldsV1(new FieldsV1())
                    .endManagedField()
                    .endMetadata());
    match(fieldTakenOver, desired(3), true);
    assertThat(comparisons).hasValue(5);
  }

  @Test
  void itKeepsADigestNotTheChildsOwnMaps() {
    Deployment child = actual(b -> b);
    match(child, desired(2), true);
    // A change made in place to the very maps it was handed is still a change.
    child.getMetadata().getLabels().put("x", "y");
    match(child, desired(2), true);
    assertThat(comparisons).hasValue(2);
  }

  @Test
  void labelsInAnotherOrderAreTheSameLabels() {
    match(
        actual(
            b ->
                b.editMetadata()
                    .withLabels(new java.util.LinkedHashMap<>(Map.of()))
                    .addToLabels("a", "1")
                    .addToLabels("b", "2")
                    .endMetadata()),
        desired(2),
        true);
    match(
        actual(
            b ->
                b.editMetadata()
                    .withLabels(new java.util.LinkedHashMap<>(Map.of()))
                    .addToLabels("b", "2")
                    .addToLabels("a", "1")
                    .endMetadata()),
        desired(2),
        true);
    assertThat(comparisons).hasValue(1);
  }

  @Test
  void aMismatchIsNeverRemembered() {
    assertThat(match(actual(b -> b), desired(3), false)).isFalse();
    assertThat(match(actual(b -> b), desired(3), false)).isFalse();
    assertThat(comparisons).hasValue(2);
    assertThat(matcher.remembered()).isZero();
  }

  @Test
  void withoutAGenerationEveryWriteIsComparedAgain() {
    match(actual(b -> b.editMetadata().withGeneration(null).endMetadata()), desired(2), true);
    match(actual(b -> b.editMetadata().withGeneration(null).endMetadata()), desired(2), true);
    assertThat(comparisons).hasValue(1);
    match(
        actual(b -> b.editMetadata().withGeneration(null).withResourceVersion("11").endMetadata()),
        desired(2),
        true);
    assertThat(comparisons).hasValue(2);
  }
}
