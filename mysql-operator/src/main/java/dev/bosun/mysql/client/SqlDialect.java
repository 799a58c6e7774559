package dev.bosun.mysql.client;

import java.util.ArrayList;
import java.util.List;

/**
 * Every SQL statement the operator issues, per server flavour.
 *
 * <p>Statements that carry a password are built here and executed by the workload layer, which
 * never logs statement text: only the step name appears in logs.
 */
public interface SqlDialect {

  /** The schema the operator keeps its own records in; backups and rebuilds leave it out. */
  String OPERATOR_SCHEMA = "bosun";

  /**
   * Seconds a replica's receiver waits on a silent source before it drops the connection (sources
   * send a heartbeat every second): a receiver that counts as connected heard its source within
   * this time, and a STOP of a receiver reconnecting to a silent host waits at most this long.
   */
  int RECEIVER_NET_TIMEOUT_SECONDS = 4;

  /** The flavour this dialect speaks to. */
  Flavour flavour();

  /** Compares and checks GTID positions of this flavour. */
  GtidArithmetic gtids();

  /**
   * One query returning, in this order and each column under its own name: executed GTID position,
   * binlog GTID position, replicated GTID position (empty where the flavour has none), read-only
   * (0/1), server identity, and the history (what {@link GtidArithmetic#historyCovers} compares).
   */
  String stateQuery();

  /** The replica status query ({@code SHOW ... STATUS}); its columns are named by the accessors. */
  String replicaStatusQuery();

  /** Replica status column names of this flavour. */
  ReplicaStatusColumns replicaStatusColumns();

  /** Query returning one row (name, value): is semi-sync active on this source. */
  String semiSyncSourceStatusQuery();

  /**
   * Points this instance at a source with GTID auto-positioning, semi-sync on the replica side, the
   * source side off, and starts replication. Carries the replication password.
   */
  List<String> replicateFrom(String host, int port, String user, String password);

  /** Stops replication (the instance keeps its data and read-only state). */
  List<String> stopReplication();

  /**
   * Makes this instance the primary: replication removed, semi-sync source side on when it has
   * replicas (with the given timeout), writes allowed.
   */
  List<String> promote(boolean withReplicas, long semiSyncTimeoutMillis);

  /**
   * {@link #promote} but writes stay stopped: a primary whose data is compared with a replica's
   * before it takes writes.
   */
  List<String> promoteFenced(boolean withReplicas, long semiSyncTimeoutMillis);

  /**
   * Stops writes on this instance (every member boots fenced; an old primary is re-fenced).
   * Semi-sync stays as it is: turning it off would release every commit waiting for an
   * acknowledgement and tell its client "committed" for a transaction no replica holds.
   */
  List<String> fence();

  /**
   * Stops this replica receiving (its IO thread) while its applier goes on: once every replica has
   * done this, an old primary can get no acknowledgement, so none of its clients is told a commit
   * succeeded.
   */
  List<String> stopReceiving();

  /** Starts the applier (SQL thread) alone, so a candidate applies what it already received. */
  List<String> startApplier();

  /**
   * Query returning the ids (one column) of the client connections a fence must end: everything but
   * the operator's own, the replication user's, the server's threads and connections still
   * authenticating. A KILL of one of those takes effect at its first statement, whoever it turns
   * out to be: it ended the fence's own read-only statement when that connection was opened while
   * the fence's first round of kills listed the server's connections. A client authenticating then
   * has no transaction yet, and the fence's next round of kills ends it.
   */
  default String clientConnectionsQuery() {
    return "SELECT ID FROM "
        + processlistTable()
        + " WHERE ID <> CONNECTION_ID() AND USER NOT IN ('system user', 'event_scheduler',"
        + " 'unauthenticated user', "
        + quote(operatorUser())
        + ", "
        + quote(replicationUser())
        + ")";
  }

  /** The table listing the server's connections (ID, USER). */
  String processlistTable();

  /**
   * Ends one connection (and the transaction it waits on: its client is never told it committed).
   */
  default String killConnection(long id) {
    return "KILL CONNECTION " + id;
  }

  /**
   * A query returning one row whose single value is the GTID set this replica received, or null
   * when the replica status column {@link ReplicaStatusColumns#receivedGtid()} already is it.
   */
  default String receivedQuery() {
    return null;
  }

  /** Turns the source side of semi-sync on or off on the primary (on only with replicas). */
  List<String> semiSyncSource(boolean on, long semiSyncTimeoutMillis);

  /**
   * Waits until this instance has applied the given GTID position or the timeout passed. Returns
   * one row; {@link #waitSucceeded(long)} interprets its value.
   */
  String waitForApplied(String gtidPosition, int timeoutSeconds);

  /** Whether the value returned by {@link #waitForApplied} means the position was reached. */
  boolean waitSucceeded(long value);

  /** Users the server needs at initialisation: root, replication, operator. */
  List<String> bootstrapUsers(
      String rootPassword, String replicationPassword, String operatorPassword);

  /** Name of the replication user. */
  default String replicationUser() {
    return "bosun_repl";
  }

  /** The metrics exporter's user: it connects over TCP from its own Pod only. */
  default String metricsUser() {
    return "bosun_metrics";
  }

  /** The host part of the metrics user: the exporter sidecar shares the server's loopback. */
  default String metricsHost() {
    return "127.0.0.1";
  }

  /**
   * Creates the metrics user, or gives an existing one this password, with what mysqld_exporter's
   * default collectors read and nothing more: process list, replica and binlog status, global
   * status and variables (readable by anyone), performance_schema; at most 3 connections.
   */
  default List<String> metricsUser(String password) {
    String account = quote(metricsUser()) + "@" + quote(metricsHost());
    return List.of(
        "CREATE USER IF NOT EXISTS "
            + account
            + " IDENTIFIED BY "
            + quote(password)
            + " WITH MAX_USER_CONNECTIONS 3",
        "ALTER USER " + account + " IDENTIFIED BY " + quote(password),
        "GRANT " + String.join(", ", metricsPrivileges()) + " ON *.* TO " + account,
        "GRANT SELECT ON performance_schema.* TO " + account);
  }

  /** The global privileges of the metrics user in this flavour. */
  List<String> metricsPrivileges();

  /** Name of the operator's own user. */
  default String operatorUser() {
    return "bosun_operator";
  }

  /** The dump client and its arguments (no credentials: they go in a defaults-extra-file). */
  List<String> dumpCommand(String host, int port, List<String> databases);

  /** The command-line client used to load a dump (credentials in a defaults-extra-file). */
  List<String> clientCommand(String host, int port);

  /**
   * Whether a dump statement must be skipped when loading it into a new cluster's primary (given
   * its first line; the whole statement, up to the line ending in ';', is skipped).
   */
  boolean skipOnRestore(String dumpLine);

  /**
   * The GTID position a dump is consistent with, from one of its header statements (given whole,
   * line breaks included), or null.
   */
  String dumpGtid(String dumpStatement);

  /** Options appended to the operator's JDBC URL for this flavour ("" or "?k=v&..."). */
  default String jdbcOptions() {
    return "";
  }

  /** Server settings the operator owns; users may not override them in serverConfig. */
  List<String> ownedSettings();

  /** The [mysqld] settings every member starts with (read-only, GTID, binlog, semi-sync). */
  List<String> baseConfig(int serverId, int port);

  /**
   * An application account of spec.users, from any host: its databases created when missing, the
   * account created or its password set, and the privileges on each of its databases (never a
   * server-wide one, so a fence stops it and it cannot grant itself more).
   */
  default List<String> applicationAccount(
      String user, String password, List<String> databases, List<String> privileges) {
    String account = quote(user) + "@'%'";
    String granted = privileges.contains("ALL") ? "ALL PRIVILEGES" : String.join(", ", privileges);
    List<String> s = new ArrayList<>();
    for (String db : databases) {
      s.add("CREATE DATABASE IF NOT EXISTS " + quoteName(db));
    }
    s.add("CREATE USER IF NOT EXISTS " + account + " IDENTIFIED BY " + quote(password));
    s.add("ALTER USER " + account + " IDENTIFIED BY " + quote(password));
    for (String db : databases) {
      s.add("GRANT " + granted + " ON " + quoteName(db) + ".* TO " + account);
    }
    return s;
  }

  /**
   * The accounts (user, host) whose writes a fence might not stop, for {@link
   * #withoutFenceExemption}; null when the flavour's fence stops every account (MySQL's
   * super_read_only does).
   */
  default String fenceExemptAccountsQuery() {
    return null;
  }

  /** Takes from one account what lets it write through a fence. */
  default List<String> withoutFenceExemption(String user, String host) {
    return List.of();
  }

  /**
   * The statements a load of fromBackup runs last, recording that it finished and what it loaded,
   * in the operator's own schema (backups leave it out): an operator that restarts after the load
   * ended and before it recorded the end finds it here.
   */
  default List<String> restoreFinished(String location) {
    return List.of(
        "CREATE DATABASE IF NOT EXISTS " + OPERATOR_SCHEMA,
        "CREATE TABLE IF NOT EXISTS "
            + OPERATOR_SCHEMA
            + ".restore (location VARCHAR(1024) NOT NULL,"
            + " finished_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB",
        "INSERT INTO " + OPERATOR_SCHEMA + ".restore (location) VALUES (" + quote(location) + ")");
  }

  /**
   * Why this flavour's members' data cannot be compared with the primary's (after a restart), or
   * null when it can: the comparison pins a replica's applier at a binlog position of its source.
   */
  default String contentCheckUnsupported() {
    return "comparing a member's data with the primary's is built for MariaDB only";
  }

  /**
   * Forgets a replica's source settings and relay logs (its applied GTID position stays): what lets
   * a member whose replication settings a crash left unreadable be attached again.
   */
  String forgetSource();

  /** Stops a replica's applier, leaving its receiver (and its acknowledgements) running. */
  default String stopApplier() {
    throw new UnsupportedOperationException(contentCheckUnsupported());
  }

  /** Starts a replica's applier until it has applied its source's binlog up to file:position. */
  default String applyUntil(String file, long position) {
    throw new UnsupportedOperationException(contentCheckUnsupported());
  }

  /**
   * In a transaction WITH CONSISTENT SNAPSHOT: one row (name, value) per binlog coordinate of the
   * snapshot, file first, then position.
   */
  default String snapshotCoordinatesQuery() {
    throw new UnsupportedOperationException(contentCheckUnsupported());
  }

  /** One row, one column: the GTID position a binlog coordinate of this server stands for. */
  default String gtidAtQuery(String file, long position) {
    throw new UnsupportedOperationException(contentCheckUnsupported());
  }

  /** One row, one column: what a replica's applier has applied. */
  default String appliedQuery() {
    throw new UnsupportedOperationException(contentCheckUnsupported());
  }

  /** The location the last finished load recorded ({@link #restoreFinished}). */
  default String restoreFinishedQuery() {
    return "SELECT location FROM " + OPERATOR_SCHEMA + ".restore ORDER BY finished_at DESC LIMIT 1";
  }

  /** A schema or table name in backquotes. */
  static String quoteName(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /** Quotes a string literal for SQL. */
  static String quote(String value) {
    StringBuilder sb = new StringBuilder("'");
    for (char c : value.toCharArray()) {
      switch (c) {
        case '\'' -> sb.append("''");
        case '\\' -> sb.append("\\\\");
        case '\0' -> sb.append("\\0");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        default -> sb.append(c);
      }
    }
    return sb.append('\'').toString();
  }

  /** The dialect of a flavour. */
  static SqlDialect of(Flavour flavour) {
    return flavour == Flavour.MARIADB ? new MariaDbDialect() : new MySql84Dialect();
  }
}
