package dev.bosun.mysql.sql;

import java.util.List;

/**
 * Every SQL statement the operator issues, per server flavour.
 *
 * <p>Statements that carry a password are built here and executed by the workload layer, which
 * never logs statement text: only the step name appears in logs.
 */
public interface SqlDialect {

  /** The flavour this dialect speaks to. */
  Flavour flavour();

  /** Compares and checks GTID positions of this flavour. */
  GtidArithmetic gtids();

  /**
   * One query returning, in this order: executed GTID position, binlog GTID position, replicated
   * GTID position (empty where the flavour has none), read-only (0/1), server identity.
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

  /** Stops writes on this instance (every member boots fenced; an old primary is re-fenced). */
  List<String> fence();

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

  /** Name of the operator's own user. */
  default String operatorUser() {
    return "bosun_operator";
  }

  /** The dump client and its arguments (no credentials: they go in a defaults-extra-file). */
  List<String> dumpCommand(String host, int port, List<String> databases);

  /** The command-line client used to load a dump (credentials in a defaults-extra-file). */
  List<String> clientCommand(String host, int port);

  /** Whether a line of a dump must be skipped when loading it into a new cluster's primary. */
  boolean skipOnRestore(String dumpLine);

  /** The GTID position a dump is consistent with, from one of its header lines, or null. */
  String dumpGtid(String dumpLine);

  /** Server settings the operator owns; users may not override them in serverConfig. */
  List<String> ownedSettings();

  /** The [mysqld] settings every member starts with (read-only, GTID, binlog, semi-sync). */
  List<String> baseConfig(int serverId, int port);

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
