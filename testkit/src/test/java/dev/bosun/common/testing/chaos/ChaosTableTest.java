package dev.bosun.common.testing.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChaosTableTest {

  @Test
  void rowsPerScheduleAndTotalsOverAll(@TempDir Path dir) throws Exception {
    ChaosTable table =
        new ChaosTable("etcd, 3 members", "reads back in time")
            .add(
                new ChaosResult(
                    8, 12, 11, 1_500, 0, 0, Duration.ofMillis(4_200), Duration.ofSeconds(9)))
            .add(
                new ChaosResult(
                    21, 12, 12, 1_300, 2, 1, Duration.ofMillis(7_800), Duration.ofSeconds(14)));

    assertThat(table.totals())
        .isEqualTo(
            "2 schedules, 23 faults injected, 2800 acknowledged, 2 lost, 1 reads back in time"
                + " samples, longest unavailability 7.8s");
    assertThat(table.text())
        .contains("seed")
        .contains("  21")
        .endsWith("longest unavailability 7.8s\n");
    assertThat(table.results()).extracting(ChaosResult::safe).containsExactly(true, false);

    Path file = dir.resolve("out/etcd.md");
    table.writeMarkdown(file);
    assertThat(Files.readString(file))
        .startsWith("Chaos results: etcd, 3 members\n\n| seed | faults |")
        .contains("| 21 | 12 | 12 | 1300 | 2 | 1 | 7.8 | 14.0 |")
        .contains("\nTotal: 2 schedules");
  }
}
