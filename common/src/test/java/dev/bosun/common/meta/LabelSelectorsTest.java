package dev.bosun.common.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorsTest {

  private static final Map<String, String> LABELS = Map.of("team", "a", "env", "prod");

  @Test
  void nullMatchesNothingAndEmptyMatchesEverything() {
    assertThat(LabelSelectors.matches(null, LABELS)).isFalse();
    assertThat(LabelSelectors.matches(new LabelSelector(), LABELS)).isTrue();
    assertThat(LabelSelectors.matches(new LabelSelector(), null)).isTrue();
  }

  @Test
  void matchLabelsNeedsEveryPair() {
    assertThat(LabelSelectors.matches(sel().addToMatchLabels("team", "a").build(), LABELS))
        .isTrue();
    assertThat(
            LabelSelectors.matches(
                sel().addToMatchLabels("team", "a").addToMatchLabels("env", "dev").build(), LABELS))
        .isFalse();
    assertThat(LabelSelectors.matches(sel().addToMatchLabels("zone", "x").build(), LABELS))
        .isFalse();
  }

  @Test
  void expressions() {
    assertThat(LabelSelectors.matches(expr("env", "In", "prod", "stage"), LABELS)).isTrue();
    assertThat(LabelSelectors.matches(expr("env", "In", "dev"), LABELS)).isFalse();
    assertThat(LabelSelectors.matches(expr("env", "NotIn", "dev"), LABELS)).isTrue();
    assertThat(LabelSelectors.matches(expr("env", "NotIn", "prod"), LABELS)).isFalse();
    assertThat(LabelSelectors.matches(expr("zone", "NotIn", "x"), LABELS)).isTrue();
    assertThat(LabelSelectors.matches(expr("team", "Exists"), LABELS)).isTrue();
    assertThat(LabelSelectors.matches(expr("zone", "Exists"), LABELS)).isFalse();
    assertThat(LabelSelectors.matches(expr("zone", "DoesNotExist"), LABELS)).isTrue();
    assertThat(LabelSelectors.matches(expr("team", "DoesNotExist"), LABELS)).isFalse();
    assertThatThrownBy(() -> LabelSelectors.matches(expr("team", "Near"), LABELS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Near");
  }

  private static LabelSelectorBuilder sel() {
    return new LabelSelectorBuilder();
  }

  private static LabelSelector expr(String key, String op, String... values) {
    return sel()
        .addNewMatchExpression()
        .withKey(key)
        .withOperator(op)
        .withValues(values)
        .endMatchExpression()
        .build();
  }

  @Test
  void problemsNameTheFieldAndTheRule() {
    assertThat(LabelSelectors.problems(null, "spec.selector")).isEmpty();
    assertThat(LabelSelectors.problems(expr("env", "In", "prod"), "spec.selector")).isEmpty();
    assertThat(LabelSelectors.problems(expr("env", "Exists"), "spec.selector")).isEmpty();
    assertThat(LabelSelectors.problems(expr("env", "In"), "spec.selector"))
        .singleElement()
        .asString()
        .contains("spec.selector.matchExpressions[0]")
        .contains("need values");
    assertThat(LabelSelectors.problems(expr("env", "DoesNotExist", "x"), "spec.selector"))
        .singleElement()
        .asString()
        .contains("take no values");
  }
}
