package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.ReplicaStatusColumns;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes every instance with three queries each on one connection: state, replica status,
 * semi-sync status (MySQL replicas a fourth: the received GTID set from performance_schema). The
 * other instances are observed at once, the recorded primary after them, so a healthy replica never
 * appears ahead of it.
 */
public final class Observer {

  private static final Logger LOG = LoggerFactory.getLogger(Observer.class);

  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Duration timeout;
  private final AtomicLong queries = new AtomicLong();

  /** Why each member last failed to answer, so a new reason is logged once, not every round. */
  private final Map<String, String> lastFailure = new ConcurrentHashMap<>();

  /** An observer for one flavour. */
  public Observer(SqlDialect dialect, Credentials credentials, Duration timeout) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.timeout = timeout;
  }

  /** Queries sent so far (the health-polling cost). */
  public long queries() {
    return queries.get();
  }

  /**
   * Why each instance that did not answer its last observation failed (the address tried and what
   * came back), for the status: "unreachable" alone says nothing a person can act on.
   */
  public Map<String, String> unreachableReasons() {
    return Map.copyOf(lastFailure);
  }

  /**
   * Observes the named instances (name -> address): every instance but the recorded primary at
   * once, then the primary, so a healthy replica never appears ahead of it.
   */
  public List<InstanceState> observe(Map<String, Address> instances, String primary) {
    return observe(instances, primary, timeout);
  }

  /**
   * The same, waiting at most {@code primaryTimeout} for the primary: a primary silent for most of
   * the detection window is asked only until the window ends, so the round that can decide a
   * failover does not run a whole SQL timeout past it.
   */
  public List<InstanceState> observe(
      Map<String, Address> instances, String primary, Duration primaryTimeout) {
    List<String> others =
        instances.keySet().stream().filter(n -> !n.equals(primary)).sorted().toList();
    List<InstanceState> out = new ArrayList<>();
    for (var r : Concurrently.each(others, n -> observe(n, ordinal(n), instances.get(n)))) {
      out.add(r.value());
    }
    if (primary != null && instances.containsKey(primary)) {
      out.add(observe(primary, ordinal(primary), instances.get(primary), primaryTimeout));
    }
    out.sort(Comparator.comparingInt(InstanceState::ordinal));
    return out;
  }

  /** The ordinal of a StatefulSet pod name ({@code db-2} -> 2). */
  public static int ordinal(String name) {
    int dash = name.lastIndexOf('-');
    try {
      return Integer.parseInt(name.substring(dash + 1));
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE;
    }
  }

  /** Observes one instance over one connection; any failure makes it unreachable. */
  public InstanceState observe(String name, int ordinal, Address address) {
    return observe(name, ordinal, address, timeout);
  }

  /** Observes one instance, waiting at most {@code wait} for it. */
  public InstanceState observe(String name, int ordinal, Address address, Duration wait) {
    InstanceClient client = new InstanceClient(address, credentials, wait, dialect.jdbcOptions());
    try (InstanceClient.Session session = client.open()) {
      queries.incrementAndGet();
      List<String> state = new ArrayList<>(first(session.query(dialect.stateQuery())).values());
      lastFailure.remove(name);
      queries.incrementAndGet();
      List<Map<String, String>> replica = session.query(dialect.replicaStatusQuery());
      queries.incrementAndGet();
      Map<String, String> semi = first(session.query(dialect.semiSyncSourceStatusQuery()));
      boolean semiOn = semi != null && "ON".equalsIgnoreCase(lastValue(semi));
      return replica.isEmpty()
          ? reported(name, ordinal, state, null, "", semiOn)
          : reported(
              name, ordinal, state, replica.get(0), received(session, replica.get(0)), semiOn);
    } catch (InstanceException | RuntimeException e) {
      // Which address was tried and what came back (no name, a timeout, a refusal): "did not
      // answer" alone left a force-deleted primary's 15 s unexplained.
      String why = String.valueOf(e.getMessage());
      if (!why.equals(lastFailure.put(name, why))) {
        LOG.info("{} did not answer: {}", name, why);
      }
      return InstanceState.unreachable(name, ordinal);
    }
  }

  /** What a replica received: its status row's set, or (MySQL) performance_schema's. */
  private String received(InstanceClient.Session session, Map<String, String> replicaRow)
      throws InstanceException {
    if (dialect.receivedQuery() == null) {
      return replicaRow.get(dialect.replicaStatusColumns().receivedGtid());
    }
    queries.incrementAndGet();
    Map<String, String> rec = first(session.query(dialect.receivedQuery()));
    return rec == null ? "" : lastValue(rec);
  }

  /**
   * What an instance reported: {@code r} is its replica status row, or null when it has no
   * replication configured (a primary, or a member not attached yet).
   */
  private InstanceState reported(
      String name,
      int ordinal,
      List<String> state,
      Map<String, String> r,
      String received,
      boolean semiOn) {
    ReplicaStatusColumns c = dialect.replicaStatusColumns();
    Map<String, String> row = r == null ? Map.of() : r;
    String lag = row.get(c.lagSeconds());
    return new InstanceState(
        name,
        ordinal,
        true,
        nz(state.get(0)),
        nz(state.get(1)),
        nz(state.get(2)),
        readOnly(state),
        r != null,
        row.get(c.sourceHost()),
        parseInt(row.get(c.sourcePort())),
        "Yes".equalsIgnoreCase(row.get(c.ioRunning())),
        "Connecting".equalsIgnoreCase(row.get(c.ioRunning())),
        "Yes".equalsIgnoreCase(row.get(c.sqlRunning())),
        lag == null ? null : Long.parseLong(lag),
        parseInt(row.get(c.lastIoErrno())),
        parseInt(row.get(c.lastSqlErrno())),
        nz(received),
        semiOn,
        nz(state.get(5)),
        state.size() > 6 ? parseLong(state.get(6)) : 0);
  }

  /** The state query's fourth column: read_only as 1/0 or ON/OFF. */
  private static boolean readOnly(List<String> state) {
    return "1".equals(state.get(3)) || "ON".equalsIgnoreCase(state.get(3));
  }

  private static Map<String, String> first(List<Map<String, String>> rows) {
    return rows.isEmpty() ? null : rows.get(0);
  }

  private static String lastValue(Map<String, String> row) {
    String last = null;
    for (String s : row.values()) {
      last = s;
    }
    return last;
  }

  private static String nz(String s) {
    return s == null ? "" : s;
  }

  /** A server's start as the state query gives it (whole seconds; 0 when absent). */
  public static long epochSeconds(String s) {
    return parseLong(s);
  }

  private static long parseLong(String s) {
    if (s == null || s.isBlank()) {
      return 0;
    }
    // UNIX_TIMESTAMP() - uptime may come back as a decimal.
    int dot = s.indexOf('.');
    return Long.parseLong((dot < 0 ? s : s.substring(0, dot)).trim());
  }

  private static int parseInt(String s) {
    return s == null || s.isBlank() ? 0 : Integer.parseInt(s.trim());
  }
}
