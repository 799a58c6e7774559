package dev.bosun.mysql.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every statement a step issues on MySQL 8.4, statement by statement. MySQL 8.4 cannot be installed
 * on this machine, so these tests are the proof for this flavour.
 */
class MySql84DialectTest {

  private final MySql84Dialect d = new MySql84Dialect();

  @Test
  void replicaSetupUsesTheSourceSyntaxWithAutoPosition() {
    assertThat(d.replicateFrom("db-0.db-headless.ns.svc", 3306, "bosun_repl", "pw"))
        .containsExactly(
            "STOP REPLICA",
            "SET GLOBAL rpl_semi_sync_source_enabled=OFF",
            "SET GLOBAL super_read_only=ON",
            "SET GLOBAL replica_net_timeout=4",
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='db-0.db-headless.ns.svc', SOURCE_PORT=3306,"
                + " SOURCE_USER='bosun_repl', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1,"
                + " SOURCE_CONNECT_RETRY=1, SOURCE_HEARTBEAT_PERIOD=1, GET_SOURCE_PUBLIC_KEY=1",
            "SET GLOBAL rpl_semi_sync_replica_enabled=ON",
            "START REPLICA");
    assertThat(d.replicateFrom("h", 1, "u", "p")).noneMatch(s -> s.contains("MASTER"));
  }

  @Test
  void promotionTurnsOffSuperReadOnlyAndReadOnlyLast() {
    List<String> s = d.promote(true, 10_000);
    assertThat(s)
        .containsExactly(
            "STOP REPLICA",
            "RESET REPLICA ALL",
            "SET GLOBAL rpl_semi_sync_replica_enabled=OFF",
            "SET GLOBAL rpl_semi_sync_source_timeout=10000",
            "SET GLOBAL rpl_semi_sync_source_wait_point=AFTER_SYNC",
            "SET GLOBAL rpl_semi_sync_source_enabled=ON",
            "SET GLOBAL super_read_only=OFF",
            "SET GLOBAL read_only=OFF");
  }

  @Test
  void fencingUsesSuperReadOnlyAndKeepsSemiSyncOn() {
    assertThat(d.fence()).containsExactly("SET GLOBAL super_read_only=ON");
  }

  @Test
  void failoverStopsReceivingKeepsApplyingAndReadsTheReceivedSet() {
    assertThat(d.stopReceiving()).containsExactly("STOP REPLICA IO_THREAD");
    assertThat(d.startApplier()).containsExactly("START REPLICA SQL_THREAD");
    assertThat(d.clientConnectionsQuery())
        .isEqualTo(
            "SELECT ID FROM performance_schema.processlist WHERE ID <> CONNECTION_ID() AND USER NOT"
                + " IN ('system user', 'event_scheduler', 'unauthenticated user', 'bosun_operator', 'bosun_repl')");
    assertThat(d.receivedQuery())
        .isEqualTo(
            "SELECT RECEIVED_TRANSACTION_SET FROM"
                + " performance_schema.replication_connection_status WHERE CHANNEL_NAME = ''");
  }

  @Test
  void positionQueriesUseGtidExecutedAndTheReplicaStatus() {
    assertThat(d.stateQuery()).contains("@@GLOBAL.gtid_executed", "@@GLOBAL.super_read_only");
    // The observer reads the row by column name: each column needs a name of its own, or the
    // second gtid_executed replaces the first and read-only moves to the server's UUID.
    assertThat(d.stateQuery())
        .contains(
            "AS executed_pos",
            "AS binlog_pos",
            "AS replicated_pos",
            "AS fenced",
            "AS server_identity",
            "AS history_state",
            "AS server_started");
    assertThat(d.replicaStatusQuery()).isEqualTo("SHOW REPLICA STATUS");
    assertThat(d.replicaStatusColumns().ioRunning()).isEqualTo("Replica_IO_Running");
    assertThat(d.replicaStatusColumns().lagSeconds()).isEqualTo("Seconds_Behind_Source");
    assertThat(d.semiSyncSourceStatusQuery())
        .isEqualTo("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_status'");
    assertThat(d.waitForApplied("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5", 5))
        .isEqualTo(
            "SELECT WAIT_FOR_EXECUTED_GTID_SET('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5', 5)");
    assertThat(d.waitSucceeded(0)).isTrue();
    assertThat(d.waitSucceeded(1)).isFalse();
  }

  @Test
  void dumpsUseSourceDataAndGtidPurged() {
    assertThat(d.dumpCommand("h", 3306, List.of("app")))
        .contains("mysqldump", "--single-transaction", "--source-data=1", "--set-gtid-purged=ON")
        .doesNotContain("--master-data=1");
    assertThat(d.dumpGtid("SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'uuid:1-42';"))
        .isEqualTo("uuid:1-42");
    assertThat(d.skipOnRestore("SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'uuid:1-42';")).isTrue();
    assertThat(d.skipOnRestore("SET @@SESSION.SQL_LOG_BIN= 0;")).isTrue();
    assertThat(d.skipOnRestore("INSERT INTO t VALUES (1);")).isFalse();
  }

  @Test
  void everyMemberBootsWithGtidModeSemiSyncPluginsAndSuperReadOnly() {
    assertThat(d.baseConfig(3, 3306))
        .contains(
            "gtid-mode=ON",
            "enforce-gtid-consistency=ON",
            "super-read-only=ON",
            "innodb-flush-log-at-trx-commit=1",
            "sync-binlog=1",
            "replica-net-timeout=4",
            "plugin-load-add=semisync_source.so",
            "plugin-load-add=semisync_replica.so",
            "skip-replica-start=ON");
  }

  @Test
  void theFlavourPicksItsDialect() {
    assertThat(SqlDialect.of(Flavour.MYSQL)).isInstanceOf(MySql84Dialect.class);
    assertThat(SqlDialect.of(Flavour.MARIADB)).isInstanceOf(MariaDbDialect.class);
    assertThat(Flavour.fromSpec("MariaDB")).isEqualTo(Flavour.MARIADB);
    assertThat(Flavour.fromSpec("MySQL")).isEqualTo(Flavour.MYSQL);
  }

  @Test
  void theMetricsUserReadsStatusOnlyFromTheLoopbackWithAFewConnections() {
    assertThat(d.metricsUser("m'pw"))
        .containsExactly(
            "CREATE USER IF NOT EXISTS 'bosun_metrics'@'127.0.0.1' IDENTIFIED BY 'm''pw'"
                + " WITH MAX_USER_CONNECTIONS 3",
            "ALTER USER 'bosun_metrics'@'127.0.0.1' IDENTIFIED BY 'm''pw'",
            "GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'bosun_metrics'@'127.0.0.1'",
            "GRANT SELECT ON performance_schema.* TO 'bosun_metrics'@'127.0.0.1'");
  }
}
