package dev.bosun.mysql.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The benchmark's table: one row per run, then each fault's median against the target. */
final class FailoverTable {

  private FailoverTable() {}

  /** The table in Markdown, so that it reads the same in a terminal and in the README. */
  static String format(List<FailoverRun.Row> rows, int primaryUnavailableSeconds) {
    StringBuilder sb = new StringBuilder();
    sb.append("| fault | run | s to first ack | acknowledged | lost | primary | note |\n");
    sb.append("|---|---:|---:|---:|---:|---|---|\n");
    for (FailoverRun.Row r : rows) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %d | %d | %s -> %s | %s |%n",
              r.fault().label(),
              r.run(),
              seconds(r.seconds()),
              r.acknowledged(),
              r.lost(),
              r.primaryBefore(),
              r.primaryAfter(),
              r.note()));
    }
    int target = primaryUnavailableSeconds + 3;
    sb.append(
        String.format(
            Locale.ROOT,
            "%n| fault | runs | median s | target s (primaryUnavailableSeconds %d + 3) | met |"
                + " acknowledged | lost |%n|---|---:|---:|---:|---|---:|---:|%n",
            primaryUnavailableSeconds));
    for (PrimaryFault fault : PrimaryFault.values()) {
      List<FailoverRun.Row> of = rows.stream().filter(r -> r.fault() == fault).toList();
      if (of.isEmpty()) {
        continue;
      }
      double median = median(of.stream().map(FailoverRun.Row::seconds).toList());
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %d | %s | %d | %d |%n",
              fault.label(),
              of.size(),
              seconds(median),
              target,
              median <= target ? "yes" : "NO",
              of.stream().mapToInt(FailoverRun.Row::acknowledged).sum(),
              of.stream().mapToInt(FailoverRun.Row::lost).sum()));
    }
    return sb.toString();
  }

  /** The median, a run without an acknowledged write (NaN) counting as the slowest. */
  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>();
    values.forEach(v -> sorted.add(v.isNaN() ? Double.POSITIVE_INFINITY : v));
    sorted.sort(Double::compare);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String seconds(double s) {
    return Double.isFinite(s) ? String.format(Locale.ROOT, "%.1f", s) : "none";
  }
}
