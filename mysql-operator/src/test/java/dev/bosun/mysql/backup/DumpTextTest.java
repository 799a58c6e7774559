package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.client.MySql84Dialect;
import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A dump read statement by statement: multi-line GTID_PURGED, skipped statements taken whole. */
class DumpTextTest {

  private static final String MYSQL_DUMP =
      String.join(
          "\n",
          "-- MySQL dump 10.13",
          "SET @MYSQLDUMP_TEMP_LOG_BIN = @@SESSION.SQL_LOG_BIN;",
          "SET @@SESSION.SQL_LOG_BIN= 0;",
          "",
          "--",
          "-- GTID state at the beginning of the backup ",
          "--",
          "",
          "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,",
          "4c8e1ab2-71ca-11e1-9e33-c80aa9429562:1-42,",
          "5d2f0b11-71ca-11e1-9e33-c80aa9429562:7';",
          "",
          "CREATE TABLE `t` (",
          "  `id` bigint NOT NULL",
          ");",
          "INSERT INTO `t` VALUES (1),(2);",
          "");

  @Test
  void aMultiLineGtidPurgedIsReadWhole() throws Exception {
    assertThat(DumpText.gtid(reader(MYSQL_DUMP), new MySql84Dialect()))
        .isEqualTo(
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,"
                + "4c8e1ab2-71ca-11e1-9e33-c80aa9429562:1-42,"
                + "5d2f0b11-71ca-11e1-9e33-c80aa9429562:7");
  }

  @Test
  void aRestoreLeavesOutTheWholeMultiLineGtidPurgedAndKeepsTheData() throws Exception {
    StringWriter out = new StringWriter();
    DumpText.filter(reader(MYSQL_DUMP), out, new MySql84Dialect());
    assertThat(out.toString())
        .doesNotContain("GTID_PURGED", "4c8e1ab2", "5d2f0b11", "SQL_LOG_BIN= 0")
        .contains(
            "CREATE TABLE `t` (\n  `id` bigint NOT NULL\n);", "INSERT INTO `t` VALUES (1),(2);");
  }

  @Test
  void mariaDbPositionAndReplicationStatementsOnOneLine() throws Exception {
    String dump =
        String.join(
            "\n",
            "-- MariaDB dump",
            "SET GLOBAL gtid_slave_pos='0-1-42';",
            "CHANGE MASTER TO MASTER_USE_GTID=slave_pos;",
            "INSERT INTO t VALUES (1);");
    assertThat(DumpText.gtid(reader(dump), new MariaDbDialect())).isEqualTo("0-1-42");
    StringWriter out = new StringWriter();
    DumpText.filter(reader(dump), out, new MariaDbDialect());
    assertThat(out.toString()).isEqualTo("-- MariaDB dump\nINSERT INTO t VALUES (1);\n");
  }

  /**
   * Found by the chaos lab's backups: mariadb-dump of a replica writes the position after the data,
   * and reading the first 200 lines left every backup of more than a few rows without its GTID.
   */
  @Test
  void aReplicasPositionAfterTheDataIsFoundAndARoutinesLookalikeNever() throws Exception {
    StringBuilder dump =
        new StringBuilder(
            "CHANGE MASTER TO MASTER_USE_GTID=slave_pos;\n"
                + "-- A corresponding to the above master-data CHANGE-MASTER settings to the slave"
                + " gtid state is printed later in the file.\n");
    for (int i = 0; i < 1000; i++) {
      dump.append("INSERT INTO `items` VALUES (").append(i).append(",'row');\n");
    }
    dump.append("INSERT INTO notes VALUES ('a',\n")
        .append("SET GLOBAL gtid_slave_pos='6-6-6');\n")
        .append("-- Preferably use GTID to start replication from GTID position:\n\n")
        .append("SET GLOBAL gtid_slave_pos='0-102-1433';\n")
        .append("DELIMITER ;;\n")
        .append("CREATE PROCEDURE p()\n")
        .append("BEGIN\n")
        .append("SET GLOBAL gtid_slave_pos='9-9-9';\n")
        .append("END ;;\n")
        .append("DELIMITER ;\n")
        .append("-- Dump completed\n");
    assertThat(DumpText.gtid(reader(dump.toString()), new MariaDbDialect()))
        .isEqualTo("0-102-1433");
  }

  @Test
  void mySqlsHeaderPositionIsNotTakenOverByARoutineBody() throws Exception {
    String dump =
        MYSQL_DUMP
            + "DELIMITER ;;\nCREATE PROCEDURE p()\nBEGIN\n"
            + "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'aaaaaaaa-71ca-11e1-9e33-c80aa9429562:1';\n"
            + "END ;;\nDELIMITER ;\n";
    assertThat(DumpText.gtid(reader(dump), new MySql84Dialect())).startsWith("3e11fa47");
  }

  @Test
  void aDumpWithoutAPositionHasNone() throws Exception {
    assertThat(DumpText.gtid(reader("INSERT INTO t VALUES (1);\n"), new MariaDbDialect())).isNull();
  }

  @Test
  void aLineInsideAStatementIsNeverTakenForASkippedOne() throws Exception {
    String dump = "INSERT INTO notes VALUES ('a',\n'SET GLOBAL gtid_slave_pos=1');\n";
    StringWriter out = new StringWriter();
    DumpText.filter(reader(dump), out, new MariaDbDialect());
    assertThat(out.toString()).isEqualTo(dump);
  }

  private static BufferedReader reader(String text) {
    return new BufferedReader(new StringReader(text));
  }

  @Test
  void theLoadingAccountIsLeftOutOfAUsersDumpAndEveryOtherAccountStays() throws Exception {
    String dump =
        String.join(
            "\n",
            "DELIMITER |",
            "/*M!100101 IF current_user()='''op''@''%''' THEN",
            "  SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO=30001, MESSAGE_TEXT=\"Don't remove\";",
            "END IF */|",
            "DELIMITER ;",
            "/*!50701 DROP USER IF EXISTS 'op'@'%' */;",
            "CREATE /*M!100103 OR REPLACE */ USER `op`@`%` IDENTIFIED BY PASSWORD '*D8';",
            "DELIMITER |",
            "/*M!100101 IF current_user()='''app''@''%''' THEN",
            "  SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO=30001, MESSAGE_TEXT=\"Don't remove\";",
            "END IF */|",
            "DELIMITER ;",
            "/*!50701 DROP USER IF EXISTS 'app'@'%' */;",
            "CREATE /*M!100103 OR REPLACE */ USER `app`@`%` IDENTIFIED BY PASSWORD '*B6';",
            "REPLACE INTO `t` VALUES (1,'GRANT ALL TO `op`@`%`');",
            "GRANT ALL PRIVILEGES ON *.* TO `op`@`%` WITH GRANT OPTION;",
            "/*M!100005 SET DEFAULT ROLE NONE FOR 'op'@'%' */;",
            "GRANT SELECT ON `app`.* TO `app`@`%`;",
            "GRANT PROXY ON ``@`%` TO `root`@`localhost` WITH GRANT OPTION;");
    java.io.StringWriter out = new java.io.StringWriter();
    DumpText.withoutAccounts(
        new BufferedReader(new StringReader(dump)), out, List.of("op", "root"));
    assertThat(out.toString())
        .doesNotContain("'op'@'%' */;")
        .doesNotContain("USER `op`")
        .doesNotContain("'''op''")
        .doesNotContain("GRANT ALL PRIVILEGES ON *.* TO `op`")
        .doesNotContain("GRANT PROXY")
        .contains("CREATE /*M!100103 OR REPLACE */ USER `app`@`%`")
        .contains("IF current_user()='''app''")
        .contains("GRANT SELECT ON `app`.* TO `app`@`%`;")
        // A row that happens to name the account is data, never dropped.
        .contains("REPLACE INTO `t` VALUES (1,'GRANT ALL TO `op`@`%`');");
  }
}
