package dev.bosun.mysql.reconciler;

import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import java.util.Map;

/**
 * What is wrong with a replica, in words a person can act on: a stopped receiver or applier with
 * its last error, an applier lagging behind, or no replication at all. Null when nothing is.
 */
final class ReplicaHealth {

  /** Lag above this is reported (the replica still counts as healthy: it follows). */
  static final long LAG_REPORTED_SECONDS = 10;

  private static final Map<Integer, String> ERRORS =
      Map.of(
          1045, "the replication user was refused: check the <cluster>-replication Secret",
          2003, "cannot connect to the primary",
          2013, "lost the connection to the primary",
          1236, "the primary cannot serve its position (purged binlogs or diverged history)",
          1950, "an out-of-order GTID: it diverged from the primary",
          1062, "a duplicate key: it holds rows the primary's change conflicts with",
          1032, "a row the primary's change needs is missing");

  private ReplicaHealth() {}

  /** The problem of a replica following (or supposed to follow) the primary at {@code source}. */
  static String problem(InstanceState i, Address source) {
    if (!i.replicaConfigured()) {
      return "not replicating from the primary yet";
    }
    if (!i.ioRunning()) {
      return "receiver (IO thread) not running" + lastError(i.lastIoErrno());
    }
    if (!i.sqlRunning()) {
      return "applier (SQL thread) stopped" + lastError(i.lastSqlErrno());
    }
    if (source == null || !i.replicatesFrom(source)) {
      return "replicating from " + i.sourceHost() + ":" + i.sourcePort() + ", not the primary";
    }
    if (i.lagSeconds() != null && i.lagSeconds() > LAG_REPORTED_SECONDS) {
      return "applier lagging " + i.lagSeconds() + "s behind the primary";
    }
    return null;
  }

  private static String lastError(int errno) {
    if (errno == 0) {
      return "";
    }
    String meaning = ERRORS.get(errno);
    return "; last error " + errno + (meaning == null ? "" : " (" + meaning + ")");
  }
}
