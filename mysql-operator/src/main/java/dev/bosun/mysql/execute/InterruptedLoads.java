package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.RestoreState;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Judges a load of fromBackup that the status records as started and no load of this operator
 * process knows of: the operator restarted somewhere between recording it and recording its end.
 * The primary says how far it came: the load's own last statement left a record that it finished
 * (then it is done), the primary holds no transaction at all (then nothing was loaded, and it
 * starts again), or the primary holds part of it (then it is interrupted: loading again would run
 * the dump over what the first load and clients wrote).
 */
final class InterruptedLoads {

  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Duration timeout;

  InterruptedLoads(SqlDialect dialect, Credentials credentials, Duration timeout) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.timeout = timeout;
  }

  /** The state of the load into {@code primary}, judged from what the primary holds now. */
  RestoreState judge(String primary, List<InstanceState> observed, Map<String, Address> addresses) {
    InstanceState p =
        observed.stream().filter(i -> i.name().equals(primary)).findFirst().orElse(null);
    if (p == null || !p.reachable()) {
      // Judged again once it answers; the planner looks at a restore only with a writable primary.
      return new RestoreState(RestoreState.Phase.INTERRUPTED, null);
    }
    String finished = finished(addresses.get(primary));
    if (finished != null) {
      return new RestoreState(RestoreState.Phase.DONE, finished);
    }
    return dialect.gtids().isEmpty(p.executed())
        ? new RestoreState(RestoreState.Phase.PENDING, null)
        : new RestoreState(RestoreState.Phase.INTERRUPTED, null);
  }

  /** The location the finished-load record names, or null (none, or the primary did not say). */
  private String finished(Address primary) {
    try {
      List<Map<String, String>> rows =
          new InstanceClient(primary, credentials, timeout, dialect.jdbcOptions())
              .query(dialect.restoreFinishedQuery(), timeout);
      return rows.isEmpty() ? null : rows.get(0).values().iterator().next();
    } catch (InstanceException e) {
      // No record table yet (nothing finished), or no answer: judged again next round.
      return null;
    }
  }
}
