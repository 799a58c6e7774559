package dev.bosun.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MainTest {

  private static final String KEY = "BOSUN_REQUIRE_DESTINATION_CONSENT";

  @Test
  void destinationConsentIsRequiredByDefault() {
    assertThat(Main.destinationConsentRequired(Map.of())).isTrue();
    assertThat(Main.destinationConsentRequired(Map.of("OTHER", "false"))).isTrue();
  }

  @Test
  void explicitTrueOrFalse() {
    assertThat(Main.destinationConsentRequired(Map.of(KEY, "false"))).isFalse();
    assertThat(Main.destinationConsentRequired(Map.of(KEY, "true"))).isTrue();
    assertThat(Main.destinationConsentRequired(Map.of(KEY, " false "))).isFalse();
  }

  @Test
  void anythingElseIsRejectedNamingTheVariable() {
    for (String value : new String[] {"yes", "no", "", "0", "False", "TRUE"}) {
      assertThatThrownBy(() -> Main.destinationConsentRequired(Map.of(KEY, value)))
          .as("%s=%s", KEY, value)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(KEY);
    }
  }
}
