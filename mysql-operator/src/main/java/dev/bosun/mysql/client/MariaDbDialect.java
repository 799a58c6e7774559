package dev.bosun.mysql.client;

import static dev.bosun.mysql.client.SqlDialect.quote;

import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB 10.11 / 11.x: MASTER_USE_GTID=slave_pos, read_only fencing, rpl_semi_sync_* variables.
 */
public final class MariaDbDialect implements SqlDialect {

  private static final GtidArithmetic GTIDS = new MariaDbGtids();

  /**
   * How long a semi-sync receiver's STOP waits for its source to end the dump thread; 0 would wait
   * for ever on a frozen source.
   */
  static final int KILL_CONNECTION_TIMEOUT_SECONDS = 1;

  private final String jdbcOptions;

  /** The dialect as production uses it. */
  public MariaDbDialect() {
    this("");
  }

  /**
   * With options for the operator's JDBC URL ("?k=v&..."), e.g. TLS settings, or a local address to
   * bind to (the partition drills bind the operator's connections to its own address).
   */
  public MariaDbDialect(String jdbcOptions) {
    this.jdbcOptions = jdbcOptions;
  }

  @Override
  public String jdbcOptions() {
    return jdbcOptions;
  }

  @Override
  public Flavour flavour() {
    return Flavour.MARIADB;
  }

  @Override
  public GtidArithmetic gtids() {
    return GTIDS;
  }

  @Override
  public String stateQuery() {
    return "SELECT @@GLOBAL.gtid_current_pos AS executed_pos, @@GLOBAL.gtid_binlog_pos AS binlog_pos,"
        + " @@GLOBAL.gtid_slave_pos AS replicated_pos, @@GLOBAL.read_only AS fenced,"
        + " @@GLOBAL.server_id AS server_identity, @@GLOBAL.gtid_binlog_state AS history_state,"
        + " (SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
        + " WHERE VARIABLE_NAME = 'UPTIME') AS server_started";
  }

  @Override
  public String replicaStatusQuery() {
    return "SHOW SLAVE STATUS";
  }

  @Override
  public ReplicaStatusColumns replicaStatusColumns() {
    return new ReplicaStatusColumns(
        "Master_Host",
        "Master_Port",
        "Slave_IO_Running",
        "Slave_SQL_Running",
        "Seconds_Behind_Master",
        "Last_IO_Errno",
        "Last_SQL_Errno",
        "Gtid_IO_Pos");
  }

  @Override
  public String semiSyncSourceStatusQuery() {
    return "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'";
  }

  @Override
  public List<String> replicateFrom(String host, int port, String user, String password) {
    // The source side must stay off on replicas: with log-slave-updates their SQL thread would
    // otherwise wait for acknowledgements. gtid_slave_pos takes the binlog position so an old
    // primary (whose own writes are only in its binlog) resumes where it stopped.
    return List.of(
        "STOP SLAVE",
        "SET GLOBAL rpl_semi_sync_master_enabled=OFF",
        "SET GLOBAL read_only=ON",
        "SET GLOBAL gtid_slave_pos=@@GLOBAL.gtid_binlog_pos",
        // Also for members started before the net timeout was 4 s: it applies from START SLAVE.
        "SET GLOBAL slave_net_timeout=" + RECEIVER_NET_TIMEOUT_SECONDS,
        "CHANGE MASTER TO MASTER_HOST="
            + quote(host)
            + ", MASTER_PORT="
            + port
            + ", MASTER_USER="
            + quote(user)
            + ", MASTER_PASSWORD="
            + quote(password)
            // A heartbeat every second when the binlog is idle: a receiver that heard nothing
            // for the net timeout (4 s) drops the connection (see baseConfig).
            + ", MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1",
        "SET GLOBAL rpl_semi_sync_slave_enabled=ON",
        "START SLAVE");
  }

  @Override
  public String contentCheckUnsupported() {
    return null;
  }

  @Override
  public String stopApplier() {
    return "STOP SLAVE SQL_THREAD";
  }

  @Override
  public String applyUntil(String file, long position) {
    // The applier alone: UNTIL master_gtid_pos would stop the receiver too (and its
    // acknowledgements), and MariaDB refuses it while the receiver runs.
    return "START SLAVE SQL_THREAD UNTIL MASTER_LOG_FILE="
        + quote(file)
        + ", MASTER_LOG_POS="
        + position;
  }

  @Override
  public String snapshotCoordinatesQuery() {
    return "SHOW STATUS WHERE Variable_name IN ('binlog_snapshot_file', 'binlog_snapshot_position')";
  }

  @Override
  public String gtidAtQuery(String file, long position) {
    return "SELECT BINLOG_GTID_POS(" + quote(file) + ", " + position + ") AS gtid";
  }

  @Override
  public String appliedQuery() {
    return "SELECT @@GLOBAL.gtid_slave_pos AS applied";
  }

  @Override
  public String forgetSource() {
    return "RESET SLAVE ALL";
  }

  @Override
  public List<String> stopReplication() {
    return List.of("STOP SLAVE");
  }

  @Override
  public List<String> promote(boolean withReplicas, long semiSyncTimeoutMillis) {
    List<String> s = new ArrayList<>(promoteFenced(withReplicas, semiSyncTimeoutMillis));
    s.add("SET GLOBAL read_only=OFF");
    return s;
  }

  @Override
  public List<String> promoteFenced(boolean withReplicas, long semiSyncTimeoutMillis) {
    List<String> s = new ArrayList<>();
    s.add("STOP SLAVE");
    s.add("RESET SLAVE ALL");
    s.add("SET GLOBAL rpl_semi_sync_slave_enabled=OFF");
    s.addAll(semiSyncSource(withReplicas, semiSyncTimeoutMillis));
    return s;
  }

  @Override
  public List<String> fence() {
    return List.of("SET GLOBAL read_only=ON");
  }

  @Override
  public List<String> stopReceiving() {
    // A semi-sync receiver's STOP first connects to its source to end the dump thread there,
    // waiting up to this timeout (default 5 s, seen as 2 s) for a frozen source: the failover's
    // largest step after the window. 1 s also covers members started before the config said so.
    return List.of(
        "SET GLOBAL rpl_semi_sync_slave_kill_conn_timeout=" + KILL_CONNECTION_TIMEOUT_SECONDS,
        "STOP SLAVE IO_THREAD");
  }

  @Override
  public List<String> startApplier() {
    return List.of("START SLAVE SQL_THREAD");
  }

  @Override
  public String processlistTable() {
    return "information_schema.PROCESSLIST";
  }

  @Override
  public List<String> semiSyncSource(boolean on, long semiSyncTimeoutMillis) {
    if (!on) {
      return List.of("SET GLOBAL rpl_semi_sync_master_enabled=OFF");
    }
    return List.of(
        "SET GLOBAL rpl_semi_sync_master_timeout=" + semiSyncTimeoutMillis,
        "SET GLOBAL rpl_semi_sync_master_wait_point=AFTER_SYNC",
        "SET GLOBAL rpl_semi_sync_master_enabled=ON");
  }

  @Override
  public String waitForApplied(String gtidPosition, int timeoutSeconds) {
    return "SELECT MASTER_GTID_WAIT(" + quote(gtidPosition) + ", " + timeoutSeconds + ")";
  }

  @Override
  public boolean waitSucceeded(long value) {
    return value == 0;
  }

  @Override
  public List<String> metricsPrivileges() {
    // 10.5+ split REPLICATION CLIENT: SHOW SLAVE STATUS needs REPLICA MONITOR, binlog status
    // BINLOG MONITOR (REPLICATION CLIENT is only an alias of the latter).
    return List.of("PROCESS", "BINLOG MONITOR", "REPLICA MONITOR");
  }

  @Override
  public List<String> bootstrapUsers(
      String rootPassword, String replicationPassword, String operatorPassword) {
    // Bootstrap runs with skip-grant-tables: FLUSH PRIVILEGES first so CREATE USER works.
    // No account but the operator's may hold READ_ONLY ADMIN: read_only would not stop it.
    return List.of(
        "FLUSH PRIVILEGES",
        "CREATE OR REPLACE USER 'root'@'%' IDENTIFIED BY " + quote(rootPassword),
        "GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION",
        "REVOKE READ_ONLY ADMIN ON *.* FROM 'root'@'%'",
        "CREATE OR REPLACE USER "
            + quote(replicationUser())
            + "@'%' IDENTIFIED BY "
            + quote(replicationPassword),
        "GRANT REPLICATION SLAVE ON *.* TO " + quote(replicationUser()) + "@'%'",
        "CREATE OR REPLACE USER "
            + quote(operatorUser())
            + "@'%' IDENTIFIED BY "
            + quote(operatorPassword),
        "GRANT ALL PRIVILEGES ON *.* TO " + quote(operatorUser()) + "@'%' WITH GRANT OPTION");
  }

  @Override
  public String fenceExemptAccountsQuery() {
    // read_only does not stop READ_ONLY ADMIN, and GRANT ALL gives it: every account holding it
    // but the operator's (which sets read_only) and the server's own. From the server's loaded
    // privileges, not mysql.global_priv: a row the server ignored (a host name under
    // skip-name-resolve, as an image's install script may leave) can log in with nothing, and a
    // REVOKE naming it fails (1133), which stopped every REVOKE after it. GRANTEE is 'user'@'host'
    // with quotes doubled; the host holds no quote, so the last '@' separator splits it.
    String separator = "CONCAT(CHAR(39), '@', CHAR(39))";
    String host = "SUBSTRING_INDEX(GRANTEE, " + separator + ", -1)";
    return "SELECT User, Host FROM (SELECT REPLACE(SUBSTRING(GRANTEE, 2, CHAR_LENGTH(GRANTEE) -"
        + " CHAR_LENGTH("
        + host
        + ") - 4), REPEAT(CHAR(39), 2), CHAR(39)) AS User, TRIM(TRAILING CHAR(39) FROM "
        + host
        + ") AS Host FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE = 'READ_ONLY"
        + " ADMIN') AS holders WHERE User NOT IN ('mariadb.sys', "
        + quote(operatorUser())
        + ")";
  }

  @Override
  public List<String> withoutFenceExemption(String user, String host) {
    return List.of("REVOKE READ_ONLY ADMIN ON *.* FROM " + quote(user) + "@" + quote(host));
  }

  @Override
  public List<String> dumpCommand(String host, int port, List<String> databases) {
    List<String> c = new ArrayList<>();
    c.add("mariadb-dump");
    c.add("--host=" + host);
    c.add("--port=" + port);
    c.add("--protocol=TCP");
    c.add("--single-transaction");
    c.add("--gtid");
    // master-data=1, not 2: with 2 the gtid_slave_pos line is commented out.
    c.add("--master-data=1");
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
    // client command but DELIMITER and charset, and --sandbox refuses system, source, tee and
    // pager.
    return List.of(
        "mariadb",
        "--host=" + host,
        "--port=" + port,
        "--protocol=TCP",
        "--batch",
        "--binary-mode",
        "--sandbox");
  }

  @Override
  public boolean skipOnRestore(String line) {
    // A new cluster's primary takes the data as its own transactions (so its replicas receive
    // them); it must not adopt the source cluster's replication position.
    String l = line.stripLeading().toUpperCase();
    return l.startsWith("SET GLOBAL GTID_SLAVE_POS") || l.startsWith("CHANGE MASTER TO");
  }

  @Override
  public String dumpGtid(String line) {
    String prefix = "SET GLOBAL gtid_slave_pos='";
    int i = line.indexOf(prefix);
    if (i < 0) {
      return null;
    }
    int end = line.indexOf('\'', i + prefix.length());
    return end < 0 ? null : line.substring(i + prefix.length(), end);
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
        "log-bin",
        "log_bin",
        "log-slave-updates",
        "log_slave_updates",
        "gtid-strict-mode",
        "gtid_strict_mode",
        "binlog-format",
        "binlog_format",
        "skip-slave-start",
        "skip_slave_start",
        "skip-grant-tables",
        "skip_grant_tables",
        "rpl-semi-sync-master-enabled",
        "rpl_semi_sync_master_enabled",
        "rpl-semi-sync-slave-enabled",
        "rpl_semi_sync_slave_enabled",
        "rpl-semi-sync-master-wait-point",
        "rpl_semi_sync_master_wait_point",
        "innodb-flush-log-at-trx-commit",
        "innodb_flush_log_at_trx_commit",
        "sync-binlog",
        "sync_binlog",
        "log-basename",
        "log_basename",
        "relay-log",
        "rpl-semi-sync-master-wait-no-slave",
        "rpl_semi_sync_master_wait_no_slave",
        "rpl-semi-sync-master-timeout",
        "rpl_semi_sync_master_timeout",
        "slave-net-timeout",
        "slave_net_timeout",
        "rpl-semi-sync-slave-kill-conn-timeout",
        "rpl_semi_sync_slave_kill_conn_timeout",
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
        "log-slave-updates=ON",
        "binlog-format=ROW",
        "gtid-strict-mode=ON",
        "skip-slave-start",
        // A receiver counts as connected (and its replica as a witness that the primary lives:
        // no failover) only while it heard a heartbeat or an event within the last 4 s; a
        // frozen or cut-off source is dropped then, well inside the shortest detection window.
        // It also bounds how long STOP SLAVE waits on a receiver reconnecting to a silent host.
        "slave-net-timeout=" + RECEIVER_NET_TIMEOUT_SECONDS,
        // Every member boots fenced; the operator decides who takes writes.
        "read-only=ON",
        // 1, not 0 or 2 in production: a crash must not lose a commit the binlog already has.
        "innodb-flush-log-at-trx-commit=1",
        // The binlog is what a replica receives and what AFTER_SYNC waits on: it must be on disk
        // before a commit is acknowledged, or a crash loses it from the primary's own history.
        "sync-binlog=1",
        "rpl-semi-sync-master-enabled=OFF",
        "rpl-semi-sync-slave-enabled=ON",
        "rpl-semi-sync-slave-kill-conn-timeout=" + KILL_CONNECTION_TIMEOUT_SECONDS,
        "rpl-semi-sync-master-wait-point=AFTER_SYNC");
  }
}
