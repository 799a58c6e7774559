package dev.bosun.mysql.backup;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.InstanceException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a logical dump where a statement may span lines: mysqldump writes a long GTID_PURGED over
 * several lines, so both the header's GTID position and the statements a restore leaves out are
 * taken whole, up to the line ending in ';'.
 */
public final class DumpText {

  private DumpText() {}

  /**
   * The GTID position a dump is consistent with, or null: the last top-level statement that sets
   * it, read to the dump's end (mysqldump writes it in the header, mariadb-dump of a replica after
   * the data). Statements are taken whole from a line's start; a routine's, trigger's or event's
   * body (written under another delimiter, and the tenant's to shape) is never read for it.
   */
  public static String gtid(BufferedReader dump, SqlDialect dialect) throws IOException {
    String found = null;
    StringBuilder statement = new StringBuilder();
    boolean otherDelimiter = false;
    boolean inStatement = false;
    boolean collecting = false;
    String line;
    while ((line = dump.readLine()) != null) {
      if (!inStatement && line.startsWith("DELIMITER ")) {
        otherDelimiter = !line.strip().equals("DELIMITER ;");
        continue;
      }
      if (otherDelimiter) {
        continue;
      }
      if (!inStatement) {
        if (line.isBlank() || line.startsWith("--")) {
          continue;
        }
        inStatement = true;
        collecting = line.startsWith("SET ");
      }
      if (collecting) {
        if (statement.length() > 0) {
          statement.append('\n');
        }
        statement.append(line);
        // A position statement is short; anything longer is not one.
        collecting = statement.length() <= MAX_POSITION_STATEMENT;
      }
      if (ends(line)) {
        String gtid = collecting ? dialect.dumpGtid(statement.toString()) : null;
        found = gtid != null ? gtid : found;
        statement.setLength(0);
        inStatement = false;
        collecting = false;
      }
    }
    return found;
  }

  /** The longest position statement read: a GTID set of a few thousand servers. */
  private static final int MAX_POSITION_STATEMENT = 1 << 20;

  /**
   * Copies a dump, leaving out whole statements the dialect skips on restore. A dump that holds a
   * client command is refused whole, naming the line, never its text (it is a tenant's).
   */
  public static void filter(BufferedReader dump, Writer out, SqlDialect dialect)
      throws IOException, InstanceException {
    boolean skipping = false;
    boolean inStatement = false;
    ClientCommandScanner commands = new ClientCommandScanner();
    long number = 0;
    String line;
    while ((line = dump.readLine()) != null) {
      number++;
      if (commands.holdsCommand(line)) {
        throw new InstanceException(
            "line "
                + number
                + " of the dump holds a client command (such as system, source or a backslash"
                + " command), which a restore never runs; the dump was refused and nothing of it"
                + " was loaded");
      }
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

  /** How the user statements of {@code --system=users} begin. */
  private static final List<String> ACCOUNT_STATEMENTS =
      List.of(
          "/*!50701 DROP USER",
          "CREATE /*M!100103 OR REPLACE */ USER",
          "CREATE USER",
          "GRANT ",
          "/*M!100005 SET DEFAULT ROLE",
          "/*!80001 ALTER USER");

  /**
   * Copies a dump of {@code --system=users}, leaving out the statements about the accounts named
   * {@code users} (any host): the loading session runs as one of them, which the dump would drop
   * (its guard then stops the load), and the server's own accounts (root, mariadb.sys) need grants
   * the loading user cannot give. Only account statements are looked at, never rows.
   */
  public static void withoutAccounts(BufferedReader dump, Writer out, List<String> users)
      throws IOException {
    List<String> block = new ArrayList<>();
    String line;
    while ((line = dump.readLine()) != null) {
      if (!block.isEmpty() || line.equals("DELIMITER |")) {
        // mariadb-dump guards each DROP USER with an IF current_user() block of its own.
        block.add(line);
        if (line.equals("DELIMITER ;")) {
          if (block.stream().noneMatch(l -> guards(l, users))) {
            write(out, block);
          }
          block.clear();
        }
        continue;
      }
      String l = line;
      if (!(ACCOUNT_STATEMENTS.stream().anyMatch(l::startsWith) && names(l, users))) {
        out.write(line);
        out.write('\n');
      }
    }
    write(out, block);
  }

  private static boolean names(String line, List<String> users) {
    return users.stream()
        .anyMatch(u -> line.contains("'" + u + "'@'") || line.contains("`" + u + "`@`"));
  }

  private static boolean guards(String line, List<String> users) {
    return users.stream().anyMatch(u -> line.contains("'''" + u + "''@''"));
  }

  private static void write(Writer out, List<String> lines) throws IOException {
    for (String b : lines) {
      out.write(b);
      out.write('\n');
    }
  }
}
