package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.InstanceException;
import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A tenant's dump never runs a client command: every form the mysql and mariadb clients read as one
 * is found, and what the dump tools write (strings and comments holding backslashes, USE,
 * DELIMITER, the sandbox line) passes.
 */
class ClientCommandScannerTest {

  /** What mariadb-dump 10.11 writes, routines, odd data and comments included. */
  static final String GOOD_DUMP =
      String.join(
          "\n",
          "/*M!999999\\- enable the sandbox mode */ ",
          "-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB",
          "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;",
          "-- a comment with \\! in it",
          "# another \\. comment",
          "/* a plain comment: \\! touch /tmp/x */",
          "/* a comment over",
          "   two lines \\! */",
          "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `app` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;",
          "USE `app`;",
          "CREATE TABLE `t` (`id` int, `s` text);",
          "INSERT INTO `t` VALUES (1,'it\\'s \\\\! not a command'),(2,\"a \\\\. b\"),"
              + "(3,'line\\nbreak'),(4,'x\\\\');",
          "INSERT INTO `t` VALUES (5,'a string over",
          "system lines \\! still data",
          "');",
          "INSERT INTO `t` VALUES",
          "(6,'x'),",
          "(7,'y');",
          "DELIMITER ;;",
          "CREATE PROCEDURE `p`() BEGIN SELECT 1; SELECT 'a;;b'; END ;;",
          "DELIMITER ;",
          "SELECT `weird\\!name` FROM `t`;",
          "");

  @Test
  void aDumpAsTheToolsWriteItHoldsNoCommand() throws Exception {
    assertThat(firstCommand(GOOD_DUMP)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\\! touch /tmp/owned",
        "  \\! touch /tmp/owned",
        "SELECT 1; \\! touch /tmp/owned",
        "SELECT 1 \\! touch /tmp/owned",
        "/*!50000 \\! touch /tmp/owned */;",
        "/*M!100000 \\! touch /tmp/owned */;",
        "\\. /etc/passwd",
        "\\T /tmp/out",
        "\\P cat > /tmp/x",
        "\\r other-db some-host",
        "system touch /tmp/owned",
        "SYSTEM touch /tmp/owned",
        "\tSource /etc/passwd",
        "tee /tmp/out",
        "pager cat > /tmp/x",
        "connect other host",
        "system;",
        "DELIMITER \\!",
        "SELECT 'closed' \\! touch /tmp/owned",
        "SELECT `closed` \\! touch /tmp/owned",
      })
  void everyFormOfACommandIsFound(String line) throws Exception {
    String dump = String.join("\n", "CREATE TABLE `t` (`id` int);", line, "SELECT 1;");
    assertThat(firstCommand(dump)).hasValue(2);
  }

  @Test
  void aNamedCommandAfterAChangedDelimiterIsFound() throws Exception {
    String dump = String.join("\n", "DELIMITER ;;", "SELECT 1;;", "system touch /tmp/owned", "");
    assertThat(firstCommand(dump)).hasValue(3);
  }

  @Test
  void aCommandAfterAStringOverSeveralLinesIsFound() throws Exception {
    String dump = String.join("\n", "INSERT INTO t VALUES ('a", "b'); \\! touch /tmp/owned", "");
    assertThat(firstCommand(dump)).hasValue(2);
  }

  @Test
  void aCommandWordInsideAStatementIsData() throws Exception {
    // The client reads a named command only at the start of a statement.
    String dump = String.join("\n", "INSERT INTO t (system, source)", "VALUES (1, 2);", "");
    assertThat(firstCommand(dump)).isEmpty();
    String continued = String.join("\n", "SELECT", "system FROM t;", "");
    assertThat(firstCommand(continued)).isEmpty();
  }

  @Test
  void aRefusedDumpIsNamedByItsLineNeverByItsText() {
    String dump =
        String.join("\n", "CREATE TABLE `t` (`id` int);", "", "\\! cat /var/run/secret-token", "");
    StringWriter out = new StringWriter();
    assertThatThrownBy(
            () ->
                DumpText.filter(
                    new BufferedReader(new StringReader(dump)), out, new MariaDbDialect()))
        .isInstanceOf(InstanceException.class)
        .hasMessageContaining("line 3 of the dump holds a client command")
        .hasMessageContaining("nothing of it was loaded")
        .hasMessageNotContaining("secret-token")
        .hasMessageNotContaining("cat ");
  }

  @Test
  void aGoodDumpPassesTheFilterWhole() throws Exception {
    StringWriter out = new StringWriter();
    DumpText.filter(new BufferedReader(new StringReader(GOOD_DUMP)), out, new MariaDbDialect());
    assertThat(out.toString()).contains("CREATE PROCEDURE `p`()", "(7,'y');");
  }

  private static OptionalInt firstCommand(String dump) throws Exception {
    ClientCommandScanner scanner = new ClientCommandScanner();
    BufferedReader r = new BufferedReader(new StringReader(dump));
    String line;
    int n = 0;
    while ((line = r.readLine()) != null) {
      n++;
      if (scanner.holdsCommand(line)) {
        return OptionalInt.of(n);
      }
    }
    return OptionalInt.empty();
  }
}
