package dev.bosun.etcd.reconciler;

import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.drill.DrillTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

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

  /** What the operator does until it is cut off (it may throw: the test fails). */
  @FunctionalInterface
  interface Act {
    void run() throws Exception;
  }

  /** The request the operator was cut off at, and when the fresh operator was started. */
  record Kill(String cutAt, long restarted) {}

  /**
   * Kills the operator at a boundary: arms its cut at {@code request} (before it is sent, or right
   * after), runs {@code act} (what sets the operator going), waits for the cut, stops the operator
   * and heals the cut, hands the request cut at to {@code left} (which checks the state left
   * behind) and starts a fresh operator. A fresh one is started even when something fails, so the
   * next boundary of a shared cluster still has an operator.
   */
  static Kill kill(
      RunningOperator operator,
      boolean before,
      Predicate<String> request,
      Act act,
      Consumer<String> left)
      throws Exception {
    if (before) {
      operator.cut.before(request);
    } else {
      operator.cut.after(request);
    }
    boolean stopped = false;
    try {
      act.run();
      await("the operator is cut off")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> operator.cut.cutAt() != null);
      operator.stop();
      stopped = true;
      String cutAt = operator.cut.cutAt();
      operator.cut.heal();
      left.accept(cutAt);
      long restarted = System.nanoTime();
      operator.start();
      return new Kill(cutAt, restarted);
    } catch (Exception | AssertionError e) {
      operator.cut.heal();
      if (stopped) {
        operator.start();
      }
      throw e;
    }
  }

  /** How many of the Event reasons are destructive actions (the drills' count). */
  static long destructive(List<String> reasons) {
    return reasons.stream()
        .filter(dev.bosun.etcd.testing.ClusterObjects.DESTRUCTIVE::contains)
        .count();
  }
}
