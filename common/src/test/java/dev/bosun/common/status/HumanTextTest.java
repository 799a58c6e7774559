package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HumanTextTest {

  /** What a record renders as, the shape the MySQL ITs look for in every condition message. */
  private static final String RECORD_RENDERING = "\\w+\\[\\w+=";

  record Member(String name, int port) {}

  enum Phase {
    COPYING
  }

  @Test
  void fillsThePlacesInOrder() {
    assertThat(HumanText.format("{} of {} members healthy, {} leads", 3, 3L, "c-1"))
        .isEqualTo("3 of 3 members healthy, c-1 leads");
    assertThat(HumanText.format("no places")).isEqualTo("no places");
    assertThat(HumanText.format("{}{}", "a", new StringBuilder("b"))).isEqualTo("ab");
    assertThat(HumanText.format("{}", new BigDecimal("1E+3"))).isEqualTo("1000");
  }

  @Test
  void anArgumentIsNeverReadAsATemplate() {
    assertThat(HumanText.format("{} and {}", "{}", "b")).isEqualTo("{} and b");
  }

  @Test
  void absentValuesAndEmptyListsReadAsWords() {
    assertThat(HumanText.format("{} leads", (Object) null)).isEqualTo("unknown leads");
    assertThat(HumanText.format("left: {}", List.of())).isEqualTo("left: none");
    assertThat(HumanText.list(null)).isEqualTo("none");
  }

  @Test
  void listsAreJoinedWithCommas() {
    assertThat(HumanText.format("left: {}", List.of("c-0", "c-2"))).isEqualTo("left: c-0, c-2");
    assertThat(HumanText.list(Set.of(7))).isEqualTo("7");
  }

  @Test
  void refusesARecord() {
    assertThatThrownBy(() -> HumanText.format("member {}", new Member("c-0", 3306)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("record");
  }

  @Test
  void refusesARecordInsideAList() {
    assertThatThrownBy(() -> HumanText.list(List.of("c-1", new Member("c-0", 3306))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("record");
  }

  @Test
  void refusesAnEnumConstant() {
    assertThatThrownBy(() -> HumanText.format("phase {}", Phase.COPYING))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("enum");
    assertThatThrownBy(() -> HumanText.format("{}", TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesAnyOtherObject() {
    assertThatThrownBy(() -> HumanText.format("took {}", Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HumanText.format("{}", new Object()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HumanText.format("{}", 1.5d))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void describesAFailureInsteadOfPrintingIt() {
    var failure = new IllegalStateException("Member[name=c-0, port=3306] broke");
    String text = HumanText.format("the step failed: {}", failure);

    assertThat(text)
        .startsWith("the step failed: ")
        .doesNotContain("IllegalStateException")
        .doesNotContain("java.")
        .doesNotContainPattern(RECORD_RENDERING);
  }

  @Test
  void describesAnApiErrorByTheServersMessage() {
    var failure = new KubernetesClientException("Failure executing: GET at: https://x", 403, null);

    assertThat(HumanText.format("{}", List.of(failure)))
        .contains("HTTP 403")
        .doesNotContain("KubernetesClientException");
  }

  @Test
  void theNumberOfPlacesMustMatch() {
    assertThatThrownBy(() -> HumanText.format("{} and {}", "a"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HumanText.format("{}", "a", "b"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
