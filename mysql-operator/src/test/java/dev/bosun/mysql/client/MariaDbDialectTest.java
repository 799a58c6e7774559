package dev.bosun.mysql.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every statement a step issues on MariaDB, statement by statement. */
class MariaDbDialectTest {

  private final MariaDbDialect d = new MariaDbDialect();

  @Test
  void replicaSetupUsesGtidAutoPositioningAndOnlyTheReplicaSideOfSemiSync() {
    assertThat(d.replicateFrom("db-0.db-headless.ns.svc", 3306, "bosun_repl", "pw"))
        .containsExactly(
            "STOP SLAVE",
            "SET GLOBAL rpl_semi_sync_master_enabled=OFF",
            "SET GLOBAL read_only=ON",
            "SET GLOBAL gtid_slave_pos=@@GLOBAL.gtid_binlog_pos",
            "SET GLOBAL slave_net_timeout=4",
            "CHANGE MASTER TO MASTER_HOST='db-0.db-headless.ns.svc', MASTER_PORT=3306,"
                + " MASTER_USER='bosun_repl', MASTER_PASSWORD='pw', MASTER_USE_GTID=slave_pos,"
                + " MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1",
            "SET GLOBAL rpl_semi_sync_slave_enabled=ON",
            "START SLAVE");
  }

  @Test
  void passwordsAreQuotedSoTheyCannotEndTheLiteral() {
    assertThat(d.replicateFrom("h", 1, "u", "a'b\\c"))
        .anySatisfy(s -> assertThat(s).contains("MASTER_PASSWORD='a''b\\\\c'"));
  }

  @Test
  void promotionRemovesReplicationTurnsSemiSyncOnAndOpensWritesLast() {
    List<String> s = d.promote(true, 5000);
    assertThat(s)
        .containsExactly(
            "STOP SLAVE",
            "RESET SLAVE ALL",
            "SET GLOBAL rpl_semi_sync_slave_enabled=OFF",
            "SET GLOBAL rpl_semi_sync_master_timeout=5000",
            "SET GLOBAL rpl_semi_sync_master_wait_point=AFTER_SYNC",
            "SET GLOBAL rpl_semi_sync_master_enabled=ON",
            "SET GLOBAL read_only=OFF");
  }

  @Test
  void aSingleInstanceIsPromotedWithoutSemiSync() {
    assertThat(d.promote(false, 5000))
        .contains("SET GLOBAL rpl_semi_sync_master_enabled=OFF")
        .doesNotContain("SET GLOBAL rpl_semi_sync_master_enabled=ON")
        .last()
        .isEqualTo("SET GLOBAL read_only=OFF");
  }

  @Test
  void fencingIsReadOnlyBecauseMariaDbHasNoSuperReadOnlyAndKeepsSemiSyncOn() {
    // Turning semi-sync off would release waiting commits with no replica copy.
    assertThat(d.fence()).containsExactly("SET GLOBAL read_only=ON");
  }

  @Test
  void failoverStopsReceivingKeepsApplyingAndEndsClientConnections() {
    assertThat(d.stopReceiving())
        .containsExactly(
            "SET GLOBAL rpl_semi_sync_slave_kill_conn_timeout=1", "STOP SLAVE IO_THREAD");
    assertThat(d.startApplier()).containsExactly("START SLAVE SQL_THREAD");
    assertThat(d.clientConnectionsQuery())
        .isEqualTo(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND USER NOT"
                + " IN ('system user', 'event_scheduler', 'unauthenticated user', 'bosun_operator', 'bosun_repl')");
    assertThat(d.killConnection(42)).isEqualTo("KILL CONNECTION 42");
    // MariaDB's received position is the replica status column Gtid_IO_Pos.
    assertThat(d.receivedQuery()).isNull();
  }

  @Test
  void positionQueriesReadCurrentBinlogAndSlavePositions() {
    assertThat(d.stateQuery())
        .isEqualTo(
            "SELECT @@GLOBAL.gtid_current_pos AS executed_pos, @@GLOBAL.gtid_binlog_pos AS"
                + " binlog_pos, @@GLOBAL.gtid_slave_pos AS replicated_pos, @@GLOBAL.read_only AS"
                + " fenced, @@GLOBAL.server_id AS server_identity, @@GLOBAL.gtid_binlog_state AS"
                + " history_state, (SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE FROM"
                + " information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME') AS"
                + " server_started");
    assertThat(d.replicaStatusQuery()).isEqualTo("SHOW SLAVE STATUS");
    assertThat(d.replicaStatusColumns().receivedGtid()).isEqualTo("Gtid_IO_Pos");
    assertThat(d.semiSyncSourceStatusQuery())
        .isEqualTo("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'");
    assertThat(d.waitForApplied("0-1-10", 5)).isEqualTo("SELECT MASTER_GTID_WAIT('0-1-10', 5)");
    assertThat(d.waitSucceeded(0)).isTrue();
    assertThat(d.waitSucceeded(-1)).isFalse();
  }

  @Test
  void bootstrapFlushesPrivilegesFirstAndNeverGivesReplicationMoreThanItNeeds() {
    List<String> s = d.bootstrapUsers("r", "p", "o");
    assertThat(s.get(0)).isEqualTo("FLUSH PRIVILEGES");
    assertThat(s).contains("GRANT REPLICATION SLAVE ON *.* TO 'bosun_repl'@'%'");
    assertThat(s).noneMatch(x -> x.contains("bosun_repl") && x.contains("ALL PRIVILEGES"));
  }

  @Test
  void dumpsCarryTheGtidPositionUncommented() {
    assertThat(d.dumpCommand("h", 3306, List.of("app")))
        .contains("mariadb-dump", "--single-transaction", "--gtid", "--master-data=1")
        .doesNotContain("--master-data=2")
        .endsWith("--databases", "app");
    assertThat(d.dumpGtid("SET GLOBAL gtid_slave_pos='0-1-42';")).isEqualTo("0-1-42");
    assertThat(d.dumpGtid("-- SET GLOBAL gtid_slave_pos")).isNull();
  }

  @Test
  void aRestoreSkipsTheSourceClustersReplicationPosition() {
    assertThat(d.skipOnRestore("SET GLOBAL gtid_slave_pos='0-1-42';")).isTrue();
    assertThat(d.skipOnRestore("CHANGE MASTER TO MASTER_USE_GTID=slave_pos;")).isTrue();
    assertThat(d.skipOnRestore("INSERT INTO t VALUES (1);")).isFalse();
  }

  @Test
  void everyMemberBootsFencedWithGtidStrictModeAndDurableCommits() {
    assertThat(d.baseConfig(7, 3306))
        .contains(
            "server-id=7",
            "port=3306",
            "read-only=ON",
            "gtid-strict-mode=ON",
            "log-slave-updates=ON",
            "skip-slave-start",
            "innodb-flush-log-at-trx-commit=1",
            "sync-binlog=1",
            "slave-net-timeout=4",
            "rpl-semi-sync-master-enabled=OFF");
    assertThat(d.ownedSettings())
        .contains(
            "read_only",
            "server-id",
            "gtid_strict_mode",
            "sync_binlog",
            "sync-binlog",
            "innodb_flush_log_at_trx_commit");
  }

  @Test
  void anApplicationAccountGetsItsDatabasesAndNoServerWidePrivilege() {
    assertThat(
            d.applicationAccount(
                "shop", "p'w", List.of("orders", "stock"), List.of("SELECT", "INSERT")))
        .containsExactly(
            "CREATE DATABASE IF NOT EXISTS `orders`",
            "CREATE DATABASE IF NOT EXISTS `stock`",
            "CREATE USER IF NOT EXISTS 'shop'@'%' IDENTIFIED BY 'p''w'",
            "ALTER USER 'shop'@'%' IDENTIFIED BY 'p''w'",
            "GRANT SELECT, INSERT ON `orders`.* TO 'shop'@'%'",
            "GRANT SELECT, INSERT ON `stock`.* TO 'shop'@'%'");
    assertThat(d.applicationAccount("app", "x", List.of("app"), List.of("ALL")))
        .contains("GRANT ALL PRIVILEGES ON `app`.* TO 'app'@'%'")
        .noneMatch(s -> s.contains("*.*"));
  }

  @Test
  void theFenceExemptionIsTakenFromEveryAccountButTheOperatorsAndRootStartsWithout() {
    assertThat(d.fenceExemptAccountsQuery())
        .contains("information_schema.USER_PRIVILEGES", "'bosun_operator'", "'mariadb.sys'");
    assertThat(d.withoutFenceExemption("r'oot", "%"))
        .containsExactly("REVOKE READ_ONLY ADMIN ON *.* FROM 'r''oot'@'%'");
    assertThat(d.bootstrapUsers("a", "b", "c"))
        .containsSubsequence(
            "GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION",
            "REVOKE READ_ONLY ADMIN ON *.* FROM 'root'@'%'");
    // MySQL's super_read_only stops every account: nothing to take.
    assertThat(new MySql84Dialect().fenceExemptAccountsQuery()).isNull();
  }

  @Test
  void theLoadingClientReadsNoClientCommand() {
    assertThat(d.clientCommand("h", 1)).contains("--binary-mode", "--sandbox");
    assertThat(new MySql84Dialect().clientCommand("h", 1)).contains("--binary-mode");
  }
}
