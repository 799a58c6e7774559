package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.util.Set;

/**
 * What one observation of an instance found. Unreachable instances carry only their name and
 * ordinal. {@code ioConnecting}: the receiver is started and (re)trying to connect to its source,
 * not connected. {@code history} is what tells diverged histories apart where positions cannot
 * (MariaDB's gtid_binlog_state; MySQL's executed set). {@code startedAt}: when its server started
 * (epoch seconds, from its uptime; 0 when unknown), so a restart since the last look shows.
 */
public record InstanceState(
    String name,
    int ordinal,
    boolean reachable,
    String executed,
    String binlog,
    String replicated,
    boolean readOnly,
    boolean replicaConfigured,
    String sourceHost,
    int sourcePort,
    boolean ioRunning,
    boolean ioConnecting,
    boolean sqlRunning,
    Long lagSeconds,
    int lastIoErrno,
    int lastSqlErrno,
    String received,
    boolean semiSyncSourceOn,
    String history,
    long startedAt) {

  /** An instance that did not answer. */
  public static InstanceState unreachable(String name, int ordinal) {
    return new InstanceState(
        name, ordinal, false, "", "", "", true, false, null, 0, false, false, false, null, 0, 0, "",
        false, "", 0);
  }

  /** Whether the instance takes writes. */
  public boolean writable() {
    return reachable && !readOnly;
  }

  /** Whether it replicates from the given address with both threads running. */
  public boolean replicatesFrom(Address source) {
    return replicaConfigured
        && ioRunning
        && sqlRunning
        && source.host().equals(sourceHost)
        && source.port() == sourcePort;
  }

  /** Whether its IO thread is connected to the given address (it receives from it right now). */
  public boolean receivesFrom(Address source) {
    return reachable
        && replicaConfigured
        && ioRunning
        && source.host().equals(sourceHost)
        && source.port() == sourcePort;
  }

  /** Everything it holds once its applier has applied what it received. */
  public String held(GtidArithmetic gtids) {
    return gtids.union(executed, received);
  }

  /** Replication errors that mean the replica diverged from its source. */
  public boolean diverged() {
    // 1236: the source cannot serve the replica's position; 1950: out-of-order GTID (strict mode).
    return lastIoErrno == 1236 || lastSqlErrno == 1950;
  }

  /**
   * Applier errors that say the replica's data differs from its source's, so restarting the applier
   * fails the same way: a row or table the source has is missing, or one it lacks is there.
   */
  private static final Set<Integer> DATA_DIVERGENCE_ERRORS =
      Set.of(1007, 1008, 1032, 1049, 1050, 1051, 1054, 1060, 1062, 1091, 1146);

  /** Whether its replication stopped with an error restarting it cannot heal. */
  public boolean replicationBroken() {
    return reachable
        && (diverged()
            || (replicaConfigured && !sqlRunning && DATA_DIVERGENCE_ERRORS.contains(lastSqlErrno)));
  }
}
