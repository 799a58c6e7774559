package dev.bosun.common.testing.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A suite runs every seed, numbered from 1, and fails with all its failures at the end. */
class ChaosSettingsTest {

  private static ChaosSettings seeds(Long... seeds) {
    return new ChaosSettings(
        4, Duration.ofSeconds(10), 1, Duration.ofSeconds(30), SeedSource.of(List.of(seeds)));
  }

  private static ChaosResult result(long seed) {
    return new ChaosResult(seed, 4, 4, 10, 0, 0, Duration.ZERO, Duration.ZERO);
  }

  @Test
  void everySeedRunsPastAFailingOneAndTheFailuresAreKeptInOrder() throws Exception {
    List<String> ran = new ArrayList<>();

    List<String> failures =
        seeds(7L, 8L, 9L)
            .runEach(
                (seed, index) -> {
                  ran.add(index + ":" + seed);
                  return seed == 8L ? null : "seed " + seed + " broke";
                });

    assertThat(ran).containsExactly("1:7", "2:8", "3:9");
    assertThat(failures).containsExactly("seed 7 broke", "seed 9 broke");
  }

  @Test
  void faultsDrawnBesidesTheMenuLeaveEachSeedsMenuFaultsAsTheyWere() {
    List<FaultKind> menu =
        List.of(
            FaultKind.lasting(
                "freeze", 1, List.of("m0", "m1"), Duration.ofSeconds(1), Duration.ofSeconds(3)));
    List<FaultKind> besides = List.of(FaultKind.instant("back up", 1, List.of("store")));
    ChaosSettings settings = seeds(1L);

    FaultSchedule plain = settings.schedule(5, menu);
    FaultSchedule grown = settings.schedule(5, menu, besides, 2);

    assertThat(grown).isEqualTo(settings.schedule(5, menu, besides, 2));
    assertThat(grown.faults()).hasSize(plain.faults().size() + 2);
    assertThat(grown.faults().stream().filter(f -> f.kind().equals("freeze")))
        .extracting(f -> f.target() + " " + f.at() + " " + f.length())
        .containsExactlyElementsOf(
            plain.faults().stream()
                .map(f -> f.target() + " " + f.at() + " " + f.length())
                .toList());
  }

  @Test
  void aSuiteFailsWithEveryFailureOrWhenNothingRan() {
    ChaosTable table = new ChaosTable("test", "unsafe");

    assertThatThrownBy(() -> seeds().runAll(table, "[t]", (seed, index) -> null))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("no schedule ran");
    assertThatThrownBy(
            () ->
                seeds(1L, 2L)
                    .runAll(
                        table,
                        "[t]",
                        (seed, index) -> {
                          table.add(result(seed));
                          return "seed " + seed + " broke";
                        }))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("2 failing schedules")
        .hasMessageContaining("seed 1 broke")
        .hasMessageContaining("seed 2 broke");
  }
}
