package dev.bosun.etcd.reconciler;

import dev.bosun.common.testing.drill.DrillTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Drill-table helpers of the ITs that kill the operator at a boundary. */
final class BoundaryRows {

  private BoundaryRows() {}

  /** A table with the drill columns, one row per boundary. */
  static DrillTable table(String title) {
    return new DrillTable(
        title,
        List.of(
            "operator killed", "keys written", "lost", "destructive actions", "seconds to Ready"));
  }

  /** Prints the table and writes it to target/drill-results/{@code file}. */
  static void finish(DrillTable table, String file) {
    if (table.rows().isEmpty()) {
      // Another test of the class ran alone: no boundary, no file to overwrite.
      return;
    }
    table.print();
    table.writeMarkdown(Path.of("target/drill-results", file));
  }

  /** The keys written that are not read back with their value. */
  static long lost(Map<String, String> written, Map<String, String> read) {
    return written.entrySet().stream()
        .filter(e -> !e.getValue().equals(read.get(e.getKey())))
        .count();
  }

  /** How many of the Event reasons are destructive actions (the drills' count). */
  static long destructive(List<String> reasons) {
    return reasons.stream().filter(EtcdDrillIT.DESTRUCTIVE::contains).count();
  }
}
