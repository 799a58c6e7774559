package dev.bosun.common.testing.drill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The results of a module's drills, one row per drill: printed as an aligned table and written as
 * Markdown for the module's README. Numeric columns are right-aligned.
 */
public final class DrillTable {

  private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?");

  private final String title;
  private final List<String> columns;
  private final List<List<String>> rows = new ArrayList<>();

  public DrillTable(String title, List<String> columns) {
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("a drill table needs columns");
    }
    this.title = title;
    this.columns = List.copyOf(columns);
  }

  /** Adds a row; one cell per column, printed with {@code String.valueOf}. */
  public synchronized DrillTable row(Object... cells) {
    if (cells.length != columns.size()) {
      throw new IllegalArgumentException(
          title + ": " + columns.size() + " cells expected, got " + cells.length);
    }
    List<String> row = new ArrayList<>();
    for (Object cell : cells) {
      row.add(String.valueOf(cell).replace('\n', ' '));
    }
    rows.add(List.copyOf(row));
    return this;
  }

  /** The rows added so far. */
  public synchronized List<List<String>> rows() {
    return List.copyOf(rows);
  }

  /** The table as aligned plain text, title first. */
  public synchronized String text() {
    int[] widths = widths();
    StringBuilder out = new StringBuilder(title).append('\n');
    out.append(line(columns, widths)).append('\n');
    List<String> rule = new ArrayList<>();
    for (int width : widths) {
      rule.add("-".repeat(width));
    }
    out.append(String.join("  ", rule)).append('\n');
    for (List<String> row : rows) {
      out.append(line(row, widths)).append('\n');
    }
    return out.toString();
  }

  /** The table as GitHub Markdown: a caption line, then the table. */
  public String markdown() {
    return "Drill results: " + title + "\n\n" + tableMarkdown();
  }

  /** The table alone as GitHub Markdown, without a caption. */
  public synchronized String tableMarkdown() {
    StringBuilder out = new StringBuilder();
    out.append(markdownLine(columns)).append('\n');
    List<String> rule = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      rule.add(numeric(c) ? "--:" : "---");
    }
    out.append(markdownLine(rule)).append('\n');
    for (List<String> row : rows) {
      out.append(markdownLine(row)).append('\n');
    }
    return out.toString();
  }

  /** Prints {@link #text()} on stdout. */
  public void print() {
    System.out.print(text());
    System.out.flush();
  }

  /** Writes {@link #markdown()} to {@code file}, creating its directory. */
  public void writeMarkdown(Path file) {
    writeFile(file, markdown());
  }

  /** Writes {@code text} to {@code file}, creating its directory (a results file). */
  public static void writeFile(Path file, String text) {
    try {
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(Objects.requireNonNull(dir));
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private int[] widths() {
    int[] widths = new int[columns.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = columns.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    return widths;
  }

  private String line(List<String> cells, int[] widths) {
    List<String> padded = new ArrayList<>();
    for (int c = 0; c < cells.size(); c++) {
      String cell = cells.get(c);
      String pad = " ".repeat(widths[c] - cell.length());
      padded.add(numeric(c) ? pad + cell : cell + pad);
    }
    return String.join("  ", padded).stripTrailing();
  }

  /** A column is numeric when it has rows and every cell is a number. */
  private boolean numeric(int column) {
    return !rows.isEmpty() && rows.stream().allMatch(r -> NUMBER.matcher(r.get(column)).matches());
  }

  private static String markdownLine(List<String> cells) {
    List<String> escaped = new ArrayList<>();
    for (String cell : cells) {
      escaped.add(cell.replace("|", "\\|"));
    }
    return "| " + String.join(" | ", escaped) + " |";
  }
}
