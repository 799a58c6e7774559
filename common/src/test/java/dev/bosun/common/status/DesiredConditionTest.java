package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DesiredConditionTest {

  @ParameterizedTest
  @ValueSource(strings = {"True", "False", "Unknown"})
  void acceptsTheThreeStatuses(String status) {
    assertThat(new DesiredCondition("Ready", status, "Reason", "m").status()).isEqualTo(status);
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "FALSE", "yes", "", " True"})
  void rejectsOtherStatusStrings(String status) {
    assertThatThrownBy(() -> new DesiredCondition("Ready", status, "Reason", "m"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("True, False or Unknown")
        .hasMessageContaining(status);
  }

  @Test
  void rejectsNullStatus() {
    assertThatThrownBy(() -> new DesiredCondition("Ready", null, "Reason", "m"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsNullType() {
    assertThatThrownBy(() -> new DesiredCondition(null, "True", "Reason", "m"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("type");
  }

  @Test
  void rejectsNullReason() {
    assertThatThrownBy(() -> new DesiredCondition("Ready", "True", null, "m"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("reason");
  }

  @Test
  void nullMessageBecomesEmpty() {
    assertThat(new DesiredCondition("Ready", "True", "R", null).message()).isEmpty();
  }

  @Test
  void factoriesSetTheStatus() {
    assertThat(DesiredCondition.isTrue("A", "R", "m").status()).isEqualTo("True");
    assertThat(DesiredCondition.isFalse("A", "R", "m").status()).isEqualTo("False");
    assertThat(DesiredCondition.of("A", true, "R", "m").status()).isEqualTo("True");
    assertThat(DesiredCondition.of("A", false, "R", "m").status()).isEqualTo("False");
    assertThat(DesiredCondition.of("A", true, "R", "m"))
        .isEqualTo(new DesiredCondition("A", "True", "R", "m"));
  }
}
