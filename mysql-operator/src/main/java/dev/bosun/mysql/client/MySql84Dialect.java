package dev.bosun.mysql.client;

import static dev.bosun.mysql.client.SqlDialect.quote;

import java.util.ArrayList;
import java.util.List;

/**
 * MySQL 8.4: CHANGE REPLICATION SOURCE with SOURCE_AUTO_POSITION, super_read_only fencing,
 * rpl_semi_sync_source / _replica plugins, GTID sets.
 */
public final class MySql84Dialect implements SqlDialect {

  private static final GtidArithmetic GTIDS = new MySqlGtids();

  @Override
  public Flavour flavour() {
    return Flavour.MYSQL;
  }

  @Override
  public GtidArithmetic gtids() {
    return GTIDS;
  }

  @Override
  public String stateQuery() {
    // MySQL has one executed set; the received set lives in the replica status. Every column has
    // its own name: the observer reads a row by name, and two unnamed gtid_executed columns were
    // one, shifting read-only onto the server's identity.
    return "SELECT @@GLOBAL.gtid_executed AS executed_pos, @@GLOBAL.gtid_executed AS binlog_pos,"
        + " '' AS replicated_pos, @@GLOBAL.super_read_only AS fenced,"
        + " @@GLOBAL.server_uuid AS server_identity, @@GLOBAL.gtid_executed AS history_state,"
        + " (SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE FROM performance_schema.global_status"
        + " WHERE VARIABLE_NAME = 'Uptime') AS server_started";
  }

  @Override
  public String replicaStatusQuery() {
    return "SHOW REPLICA STATUS";
  }

  @Override
  public ReplicaStatusColumns replicaStatusColumns() {
    return new ReplicaStatusColumns(
        "Source_Host",
        "Source_Port",
        "Replica_IO_Running",
        "Replica_SQL_Running",
        "Seconds_Behind_Source",
        "Last_IO_Errno",
        "Last_SQL_Errno",
        "Retrieved_Gtid_Set");
  }

  @Override
  public String semiSyncSourceStatusQuery() {
    return "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source_status'";
  }

  @Override
  public List<String> replicateFrom(String host, int port, String user, String password) {
    return List.of(
        "STOP REPLICA",
        "SET GLOBAL rpl_semi_sync_source_enabled=OFF",
        "SET GLOBAL super_read_only=ON",
        "SET GLOBAL replica_net_timeout=" + RECEIVER_NET_TIMEOUT_SECONDS,
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST="
            + quote(host)
            + ", SOURCE_PORT="
            + port
            + ", SOURCE_USER="
            + quote(user)
            + ", SOURCE_PASSWORD="
            + quote(password)
            // caching_sha2_password over a plain connection needs the source's public key.
            + ", SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_HEARTBEAT_PERIOD=1,"
            + " GET_SOURCE_PUBLIC_KEY=1",
        "SET GLOBAL rpl_semi_sync_replica_enabled=ON",
        "START REPLICA");
  }

  @Override
  public String forgetSource() {
    return "RESET REPLICA ALL";
  }

  @Override
  public List<String> stopReplication() {
    return List.of("STOP REPLICA");
  }

  @Override
  public List<String> promote(boolean withReplicas, long semiSyncTimeoutMillis) {
    List<String> s = new ArrayList<>(promoteFenced(withReplicas, semiSyncTimeoutMillis));
    // super_read_only off implies read_only stays as set: both go off.
    s.add("SET GLOBAL super_read_only=OFF");
    s.add("SET GLOBAL read_only=OFF");
    return s;
  }

  @Override
  public List<String> promoteFenced(boolean withReplicas, long semiSyncTimeoutMillis) {
    List<String> s = new ArrayList<>();
    s.add("STOP REPLICA");
    s.add("RESET REPLICA ALL");
    s.add("SET GLOBAL rpl_semi_sync_replica_enabled=OFF");
    s.addAll(semiSyncSource(withReplicas, semiSyncTimeoutMillis));
    return s;
  }

  @Override
  public List<String> fence() {
    // super_read_only also stops users with CONNECTION_ADMIN / SUPER.
    return List.of("SET GLOBAL super_read_only=ON");
  }

  @Override
  public List<String> stopReceiving() {
    return List.of("STOP REPLICA IO_THREAD");
  }

  @Override
  public List<String> startApplier() {
    return List.of("START REPLICA SQL_THREAD");
  }

  @Override
  public String processlistTable() {
    return "performance_schema.processlist";
  }

  @Override
  public String receivedQuery() {
    // What semi-sync acknowledged: the set the receiver thread wrote to the relay log.
    return "SELECT RECEIVED_TRANSACTION_SET FROM performance_schema.replication_connection_status"
        + " WHERE CHANNEL_NAME = ''";
  }

  @Override
  public List<String> semiSyncSource(boolean on, long semiSyncTimeoutMillis) {
    if (!on) {
      return List.of("SET GLOBAL rpl_semi_sync_source_enabled=OFF");
    }
    return List.of(
        "SET GLOBAL rpl_semi_sync_source_timeout=" + semiSyncTimeoutMillis,
        "SET GLOBAL rpl_semi_sync_source_wait_point=AFTER_SYNC",
        "SET GLOBAL rpl_semi_sync_source_enabled=ON");
  }

  @Override
  public String waitForApplied(String gtidPosition, int timeoutSeconds) {
    return "SELECT WAIT_FOR_EXECUTED_GTID_SET(" + quote(gtidPosition) + ", " + timeoutSeconds + ")";
  }

  @Override
  public boolean waitSucceeded(long value) {
    return value == 0;
  }

  @Override
  public List<String> metricsPrivileges() {
    return List.of("PROCESS", "REPLICATION CLIENT");
  }

  @Override
  public List<String> bootstrapUsers(
      String rootPassword, String replicationPassword, String operatorPassword) {
    return List.of(
        "CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY " + quote(rootPassword),
        "GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION",
        "CREATE USER IF NOT EXISTS "
            + quote(replicationUser())
            + "@'%' IDENTIFIED BY "
            + quote(replicationPassword),
        "GRANT REPLICATION SLAVE ON *.* TO " + quote(replicationUser()) + "@'%'",
        "CREATE USER IF NOT EXISTS "
            + quote(operatorUser())
            + "@'%' IDENTIFIED BY "
            + quote(operatorPassword),
        "GRANT ALL PRIVILEGES ON *.* TO " + quote(operatorUser()) + "@'%' WITH GRANT OPTION");
  }

  @Override
  public List<String> dumpCommand(String host, int port, List<String> databases) {
    List<String> c = new ArrayList<>();
    c.add("mysqldump");
    c.add("--host=" + host);
    c.add("--port=" + port);
    c.add("--protocol=TCP");
    c.add("--single-transaction");
    c.add("--source-data=1");
    c.add("--set-gtid-purged=ON");
    c.add("--routines");
    c.add("--events");
    c.add("--triggers");
    c.add("--databases");
    c.addAll(databases);
    return c;
  }

  @Override
  public List<String> clientCommand(String host, int port) {
    // A restore feeds this client a dump a tenant could have written: --binary-mode reads no
    // client command but DELIMITER and charset.
    return List.of(
        "mysql", "--host=" + host, "--port=" + port, "--protocol=TCP", "--batch", "--binary-mode");
  }

  @Override
  public boolean skipOnRestore(String line) {
    // The new primary writes the data as its own transactions so its replicas receive them.
    String l = line.stripLeading().toUpperCase();
    return l.startsWith("SET @@GLOBAL.GTID_PURGED")
        || l.startsWith("CHANGE REPLICATION SOURCE TO")
        || l.startsWith("SET @@SESSION.SQL_LOG_BIN");
  }

  @Override
  public String dumpGtid(String statement) {
    // mysqldump breaks a long GTID_PURGED over several lines (one per server UUID): the statement
    // is given whole, and the line breaks inside the quoted set are dropped.
    String prefix = "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ '";
    int i = statement.indexOf(prefix);
    if (i < 0) {
      return null;
    }
    int end = statement.indexOf('\'', i + prefix.length());
    return end < 0 ? null : statement.substring(i + prefix.length(), end).replaceAll("\\s+", "");
  }

  @Override
  public String jdbcOptions() {
    // MySQL 8.4's default caching_sha2_password needs the server's RSA key on a connection
    // without TLS (or TLS); the key is fetched from the server the operator addresses itself.
    return "?allowPublicKeyRetrieval=true";
  }

  @Override
  public List<String> ownedSettings() {
    return List.of(
        "server-id",
        "server_id",
        "port",
        "bind-address",
        "bind_address",
        "datadir",
        "socket",
        "read-only",
        "read_only",
        "super-read-only",
        "super_read_only",
        "log-bin",
        "log_bin",
        "log-replica-updates",
        "log_replica_updates",
        "gtid-mode",
        "gtid_mode",
        "enforce-gtid-consistency",
        "enforce_gtid_consistency",
        "skip-replica-start",
        "skip_replica_start",
        "skip-grant-tables",
        "skip_grant_tables",
        "rpl-semi-sync-source-enabled",
        "rpl_semi_sync_source_enabled",
        "rpl-semi-sync-replica-enabled",
        "rpl_semi_sync_replica_enabled",
        "innodb-flush-log-at-trx-commit",
        "innodb_flush_log_at_trx_commit",
        "sync-binlog",
        "sync_binlog",
        "relay-log",
        "rpl-semi-sync-source-wait-point",
        "rpl_semi_sync_source_wait_point",
        "rpl-semi-sync-source-wait-no-replica",
        "rpl_semi_sync_source_wait_no_replica",
        "rpl-semi-sync-source-timeout",
        "rpl_semi_sync_source_timeout",
        "replica-net-timeout",
        "replica_net_timeout",
        "slave-net-timeout",
        "slave_net_timeout",
        "relay_log");
  }

  @Override
  public List<String> baseConfig(int serverId, int port) {
    return List.of(
        "server-id=" + serverId,
        "port=" + port,
        "skip-name-resolve",
        "log-bin=mysql-bin",
        "relay-log=relay-bin",
        "log-replica-updates=ON",
        "gtid-mode=ON",
        "enforce-gtid-consistency=ON",
        "skip-replica-start=ON",
        // A silent source is dropped after 4 s (see the MariaDB dialect).
        "replica-net-timeout=" + RECEIVER_NET_TIMEOUT_SECONDS,
        "read-only=ON",
        "super-read-only=ON",
        "innodb-flush-log-at-trx-commit=1",
        "sync-binlog=1",
        "plugin-load-add=semisync_source.so",
        "plugin-load-add=semisync_replica.so",
        "rpl-semi-sync-source-enabled=OFF",
        "rpl-semi-sync-replica-enabled=ON",
        "rpl-semi-sync-source-wait-point=AFTER_SYNC");
  }
}
