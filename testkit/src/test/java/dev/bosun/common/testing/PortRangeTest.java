package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PortRangeTest {

  @Test
  void aRangeReadsAsItsFirstAndLastPort() {
    assertThat(LocalProcess.portRange("24000-27999")).containsExactly(24000, 27999);
    assertThat(LocalProcess.portRange(" 20000 - 31999 ")).containsExactly(20000, 31999);
  }

  @Test
  void aRangeOutsideTheUnprivilegedPortsBelowTheEphemeralOnesIsRefused() {
    assertThatThrownBy(() -> LocalProcess.portRange("80-2000")).hasMessageContaining("1024-32767");
    assertThatThrownBy(() -> LocalProcess.portRange("30000-40000"))
        .hasMessageContaining("1024-32767");
  }

  @Test
  void aRangeTooSmallToPickFromOrMisspelledIsRefused() {
    assertThatThrownBy(() -> LocalProcess.portRange("24000-24100"))
        .hasMessageContaining("at least 1000");
    assertThatThrownBy(() -> LocalProcess.portRange("24000"))
        .hasMessageContaining("<first>-<last>");
  }
}
