package dev.bosun.common.testing.chaos;

import dev.bosun.common.testing.drill.DrillTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The results of a chaos suite: a row per schedule and a totals line (schedules run, faults
 * injected, acknowledged, lost, unsafe samples, longest unavailability), printed and written as
 * Markdown for the module's README. {@code unsafeColumn} names the operator's safety sample ("two
 * writable" for MySQL, "reads back in time" for etcd).
 */
public final class ChaosTable {

  private final String title;
  private final String unsafeColumn;
  private final DrillTable rows;
  private final List<ChaosResult> results = new ArrayList<>();

  public ChaosTable(String title, String unsafeColumn) {
    this.title = title;
    this.unsafeColumn = unsafeColumn;
    this.rows =
        new DrillTable(
            title,
            List.of(
                "seed",
                "faults",
                "injected",
                "acknowledged",
                "lost",
                unsafeColumn,
                "longest unavailability s",
                "Ready after heal s"));
  }

  /** Adds one schedule's result. */
  public synchronized ChaosTable add(ChaosResult r) {
    results.add(r);
    rows.row(
        r.seed(),
        r.faults(),
        r.injected(),
        r.acknowledged(),
        r.lost(),
        r.unsafeSamples(),
        Fault.seconds(r.longestUnavailability()),
        Fault.seconds(r.readyAfterHeal()));
    return this;
  }

  /** The results so far. */
  public synchronized List<ChaosResult> results() {
    return List.copyOf(results);
  }

  /** One line of totals over every schedule so far. */
  public synchronized String totals() {
    Duration longest =
        results.stream()
            .map(ChaosResult::longestUnavailability)
            .max(Duration::compareTo)
            .orElse(Duration.ZERO);
    return String.format(
        Locale.ROOT,
        "%d schedules, %d faults injected, %d acknowledged, %d lost, %d %s samples, longest"
            + " unavailability %ss",
        results.size(),
        results.stream().mapToLong(ChaosResult::injected).sum(),
        results.stream().mapToLong(ChaosResult::acknowledged).sum(),
        results.stream().mapToLong(ChaosResult::lost).sum(),
        results.stream().mapToLong(ChaosResult::unsafeSamples).sum(),
        unsafeColumn,
        Fault.seconds(longest));
  }

  /** The table and the totals as plain text. */
  public String text() {
    return rows.text() + "Total: " + totals() + "\n";
  }

  /** The table and the totals as Markdown, captioned for a README. */
  public String markdown() {
    return "Chaos results: "
        + title
        + "\n\n"
        + rows.tableMarkdown()
        + "\nTotal: "
        + totals()
        + "\n";
  }

  /** Prints {@link #text()}. */
  public void print() {
    System.out.print(text());
    System.out.flush();
  }

  /** Prints the table and writes it to {@code file}: a suite's report after its last schedule. */
  public void report(Path file) {
    print();
    writeMarkdown(file);
  }

  /** Writes {@link #markdown()} to {@code file}, creating its directory. */
  public void writeMarkdown(Path file) {
    DrillTable.writeFile(file, markdown());
  }
}
