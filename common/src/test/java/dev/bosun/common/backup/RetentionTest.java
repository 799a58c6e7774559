package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetentionTest {

  private static StoredObject at(String key, String time) {
    return new StoredObject(key, 1, Instant.parse(time), "file:/b/" + key);
  }

  @Test
  void removesEverythingBeyondTheNewestOldestFirst() {
    var a = at("a", "2026-01-01T00:00:00Z");
    var b = at("b", "2026-01-02T00:00:00Z");
    var c = at("c", "2026-01-03T00:00:00Z");
    var d = at("d", "2026-01-04T00:00:00Z");

    assertThat(Retention.toDelete(List.of(c, a, d, b), 2)).containsExactly(a, b);
  }

  @Test
  void keepsAllWhenThereAreNoMoreThanKeep() {
    var a = at("a", "2026-01-01T00:00:00Z");
    assertThat(Retention.toDelete(List.of(a), 1)).isEmpty();
    assertThat(Retention.toDelete(List.of(), 3)).isEmpty();
  }

  @Test
  void equalTimesAreOrderedByKey() {
    var x = at("x-1", "2026-01-01T00:00:00Z");
    var y = at("x-2", "2026-01-01T00:00:00Z");
    assertThat(Retention.toDelete(List.of(y, x), 1)).containsExactly(x);
  }

  @Test
  void neverDeletesEverything() {
    assertThatThrownBy(() -> Retention.toDelete(List.of(), 0)).hasMessageContaining("at least one");
  }
}
