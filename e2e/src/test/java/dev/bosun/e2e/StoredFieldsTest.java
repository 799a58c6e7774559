package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoredFieldsTest {

  @Test
  void sameObjectAndAddedDefaultsLoseNothing() {
    Map<String, Object> stored = Map.of("replicas", 3, "storage", Map.of("size", "5Gi"));
    Map<String, Object> readBack =
        Map.of(
            "replicas", 3L, "storage", Map.of("size", "5Gi"), "failover", Map.of("mode", "Auto"));

    assertThat(StoredFields.lostOrChanged(stored, readBack)).isEmpty();
  }

  @Test
  void aPrunedNestedFieldIsNamedByItsPath() {
    Map<String, Object> stored =
        Map.of("storage", Map.of("size", "5Gi", "whenDeleted", "Retain"), "replicas", 3);
    Map<String, Object> readBack = Map.of("storage", Map.of("size", "5Gi"), "replicas", 3);

    assertThat(StoredFields.lostOrChanged(stored, readBack))
        .containsExactly("storage.whenDeleted: Retain → (absent)");
  }

  @Test
  void aChangedListEntryAndAChangedTypeAreNamed() {
    Map<String, Object> stored =
        Map.of("ports", List.of(Map.of("port", 80, "name", "http")), "env", Map.of("A", "1"));
    Map<String, Object> readBack =
        Map.of("ports", List.of(Map.of("port", 8080, "name", "http")), "env", "A=1");

    assertThat(StoredFields.lostOrChanged(stored, readBack))
        .containsExactlyInAnyOrder("ports[0].port: 80 → 8080", "env: {A=1} → A=1");
  }

  @Test
  void aShorterListIsALoss() {
    assertThat(StoredFields.lostOrChanged(Map.of("a", List.of(1, 2)), Map.of("a", List.of(1))))
        .containsExactly("a: [1, 2] → [1]");
  }
}
