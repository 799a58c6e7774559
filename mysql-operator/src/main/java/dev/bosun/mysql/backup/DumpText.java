package dev.bosun.mysql.backup;

import dev.bosun.mysql.sql.SqlDialect;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;

/**
 * Reads a logical dump where a statement may span lines: mysqldump writes a long GTID_PURGED over
 * several lines, so both the header's GTID position and the statements a restore leaves out are
 * taken whole, up to the line ending in ';'.
 */
public final class DumpText {

  private DumpText() {}

  /** The GTID position in the first {@code maxLines} lines of a dump, or null. */
  public static String gtid(BufferedReader dump, SqlDialect dialect, int maxLines)
      throws IOException {
    StringBuilder statement = new StringBuilder();
    String line;
    int n = 0;
    while ((line = dump.readLine()) != null && n++ < maxLines) {
      if (statement.length() > 0) {
        statement.append('\n');
      }
      statement.append(line);
      if (ends(line) || line.startsWith("--") || line.isBlank()) {
        String gtid = dialect.dumpGtid(statement.toString());
        if (gtid != null) {
          return gtid;
        }
        statement.setLength(0);
      }
    }
    return null;
  }

  /** Copies a dump, leaving out whole statements the dialect skips on restore. */
  public static void filter(BufferedReader dump, Writer out, SqlDialect dialect)
      throws IOException {
    boolean skipping = false;
    boolean inStatement = false;
    String line;
    while ((line = dump.readLine()) != null) {
      if (!inStatement && !skipping && dialect.skipOnRestore(line)) {
        skipping = !ends(line);
        continue;
      }
      if (skipping) {
        skipping = !ends(line);
        continue;
      }
      if (!line.startsWith("--") && !line.isBlank()) {
        inStatement = !ends(line);
      }
      out.write(line);
      out.write('\n');
    }
  }

  private static boolean ends(String line) {
    return line.stripTrailing().endsWith(";");
  }
}
