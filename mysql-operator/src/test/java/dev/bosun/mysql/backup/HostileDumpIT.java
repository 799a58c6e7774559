package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MariaDbServers;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dump a tenant wrote never runs a command in the operator's container, on a real MariaDB and its
 * real client: the restore refuses it before loading anything, and the client the load runs is in
 * binary and sandbox mode, so even a dump that passed the scan could not run one. A real dump with
 * a routine, a changed delimiter and backslashes in its data still loads.
 */
class HostileDumpIT {

  private MariaDbServers fleet;
  private Address server;
  @TempDir Path dir;

  @BeforeEach
  void start() {
    fleet = new MariaDbServers();
    server = fleet.create("db-0", 100).start().address();
  }

  @AfterEach
  void stop() {
    fleet.close();
  }

  private LogicalDump dumps() {
    return new LogicalDump(new MariaDbDialect(), MariaDbServers.CREDENTIALS, Duration.ofSeconds(5));
  }

  @Test
  void aDumpWithAShellCommandIsRefusedAndNothingRuns() throws Exception {
    Path owned = dir.resolve("owned");
    FileSystemBackupStore store = new FileSystemBackupStore(dir.resolve("store"));
    String dump =
        String.join(
            "\n",
            "CREATE DATABASE IF NOT EXISTS `tenant`;",
            "USE `tenant`;",
            "CREATE TABLE `t` (`id` int);",
            "\\! touch " + owned,
            "INSERT INTO `t` VALUES (1);",
            "");
    store.write("hostile.sql", new ByteArrayInputStream(dump.getBytes(StandardCharsets.UTF_8)));

    assertThatThrownBy(() -> dumps().load(store, "hostile.sql", server))
        .isInstanceOf(InstanceException.class)
        .hasMessageContaining("line 4 of the dump holds a client command")
        .hasMessageNotContaining(owned.toString());
    assertThat(owned).doesNotExist();
    // Refused before the client started: not even the statements before the command ran.
    assertThat(AppClient.adminQuery(server, "SHOW DATABASES LIKE 'tenant'")).isNull();
  }

  @Test
  void theLoadingClientRunsNoCommandEvenWhenOneGetsPastTheScan() throws Exception {
    Path owned = dir.resolve("owned");
    Path input = dir.resolve("input.sql");
    for (String line :
        List.of(
            "\\! touch " + owned,
            "system touch " + owned,
            "/*!50000 \\! touch " + owned + " */;",
            "SELECT 1; \\! touch " + owned)) {
      Files.writeString(input, line + "\n");
      Path err = dir.resolve("err");
      List<String> cmd =
          new ArrayList<>(new MariaDbDialect().clientCommand(server.host(), server.port()));
      cmd.add(1, "--defaults-extra-file=" + dumps().defaultsFile());
      try {
        LogicalDump.run(cmd, input, null, err);
      } catch (InstanceException refused) {
        // The server refusing the text as SQL is the expected end: it never reached a shell.
      }
      assertThat(owned).as("after %s", line).doesNotExist();
    }
  }

  @Test
  void aRealDumpWithARoutineAndBackslashesInItsDataStillLoads() throws Exception {
    try (Connection c = AppClient.admin(server);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE shop");
      s.execute("CREATE TABLE shop.notes (id INT PRIMARY KEY, body TEXT)");
      s.execute(
          "INSERT INTO shop.notes VALUES (1, 'it''s \\\\! not a command'), (2, 'a\\nb'),"
              + " (3, 'system touch /tmp/x')");
      s.execute("CREATE PROCEDURE shop.count_notes() BEGIN SELECT COUNT(*) FROM shop.notes; END");
    }
    FileSystemBackupStore store = new FileSystemBackupStore(dir.resolve("store"));
    dumps().dump(server, store, "shop.sql", new AtomicLong());
    Address target = fleet.create("db-1", 101).start().address();

    dumps().load(store, "shop.sql", target);

    assertThat(AppClient.adminQuery(target, "SELECT body FROM shop.notes WHERE id = 1"))
        .isEqualTo("it's \\! not a command");
    assertThat(AppClient.adminQuery(target, "SELECT COUNT(*) FROM shop.notes")).isEqualTo("3");
    assertThat(
            AppClient.adminQuery(
                target,
                "SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = 'shop'"))
        .isEqualTo("1");
  }
}
