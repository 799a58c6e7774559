package dev.bosun.mysql.execute;

import static dev.bosun.mysql.client.SqlDialect.quote;
import static dev.bosun.mysql.client.SqlDialect.quoteName;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Compares one replica's data with its primary's at one position, table by table: a row count and
 * an order-free hash of every row (pt-table-checksum's idea, in one query per table and side).
 *
 * <p>{@link #pin} holds both sides at the same point: the replica's applier stops, the primary
 * opens a consistent snapshot, the applier runs on exactly to the snapshot's binlog coordinate, the
 * replica opens its own snapshot there and its applier resumes. Only the applier pauses, for as
 * long as it takes to apply what the primary committed meanwhile; the receiver, and so every
 * semi-sync acknowledgement, goes on. {@link #compare} then reads both snapshots, off the reconcile
 * threads.
 */
final class ContentCheck {

  /**
   * Schemas of the server itself (each member's own) and the operator's records, which a rebuild
   * does not copy either.
   */
  private static final String SYSTEM_SCHEMAS =
      "('mysql', 'information_schema', 'performance_schema', 'sys', "
          + quote(SqlDialect.OPERATOR_SCHEMA)
          + ")";

  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Duration timeout;

  ContentCheck(SqlDialect dialect, Credentials credentials, Duration timeout) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.timeout = timeout;
  }

  /** Two snapshots at one position, open until closed. */
  static final class Pinned implements AutoCloseable {
    final InstanceClient.Session primary;
    final InstanceClient.Session replica;
    final String position;

    private Pinned(
        InstanceClient.Session primary, InstanceClient.Session replica, String position) {
      this.primary = primary;
      this.replica = replica;
      this.position = position;
    }

    @Override
    public void close() {
      primary.close();
      replica.close();
    }
  }

  /**
   * What the comparison found: the differences (empty when none), what it compared, and whether
   * every difference is rows or tables the replica lacks, or every one is rows or tables the
   * primary lacks (in both cases with no row held twice on the side holding more).
   */
  record Result(
      List<String> differences,
      int tables,
      long rows,
      List<String> skipped,
      boolean replicaOnlyLacks,
      boolean primaryOnlyLacks) {}

  /**
   * Pins the replica at the primary's snapshot; waits at most {@code applyWait} for its applier to
   * reach it. The applier runs again whatever happens.
   */
  Pinned pin(Address replica, Address primary, Duration applyWait) throws InstanceException {
    InstanceClient.Session control = open(replica, timeout);
    InstanceClient.Session primarySnapshot = null;
    InstanceClient.Session replicaSnapshot = null;
    boolean applierStopped = false;
    try {
      control.execute("stop the applier", List.of(dialect.stopApplier()));
      applierStopped = true;
      primarySnapshot = open(primary, timeout);
      snapshot(primarySnapshot);
      Map<String, String> coordinates = new TreeMap<>();
      for (Map<String, String> row : primarySnapshot.query(dialect.snapshotCoordinatesQuery())) {
        List<String> cells = new ArrayList<>(row.values());
        coordinates.put(cells.get(0).toLowerCase(), cells.get(1));
      }
      String file = coordinates.get("binlog_snapshot_file");
      long position = Long.parseLong(coordinates.get("binlog_snapshot_position"));
      String gtid = single(primarySnapshot.query(dialect.gtidAtQuery(file, position)));
      if (gtid == null) {
        throw new InstanceException("the primary's snapshot has no GTID position");
      }
      control.execute("apply up to the snapshot", List.of(dialect.applyUntil(file, position)));
      waitApplied(control, gtid, applyWait);
      replicaSnapshot = open(replica, timeout);
      snapshot(replicaSnapshot);
      Pinned pinned = new Pinned(primarySnapshot, replicaSnapshot, gtid);
      primarySnapshot = null;
      replicaSnapshot = null;
      return pinned;
    } finally {
      if (applierStopped) {
        resume(control);
      }
      control.close();
      if (primarySnapshot != null) {
        primarySnapshot.close();
      }
      if (replicaSnapshot != null) {
        replicaSnapshot.close();
      }
    }
  }

  /** Compares every table both snapshots hold; each statement may run for {@code bound}. */
  Result compare(Pinned p, Duration bound) throws InstanceException {
    Map<String, String> primaryTables = tables(p.primary, bound);
    Map<String, String> replicaTables = tables(p.replica, bound);
    List<String> differences = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    int tables = 0;
    long rows = 0;
    boolean replicaOnlyLacks = true;
    boolean primaryOnlyLacks = true;
    for (var t : primaryTables.entrySet()) {
      String engine = replicaTables.get(t.getKey());
      if (engine == null) {
        primaryOnlyLacks = false;
        differences.add(t.getKey() + " is missing here");
        continue;
      }
      if (!"InnoDB".equalsIgnoreCase(t.getValue()) || !"InnoDB".equalsIgnoreCase(engine)) {
        // Only InnoDB reads from a snapshot: another engine's rows may move under the reads.
        skipped.add(t.getKey() + " (" + t.getValue() + ")");
        continue;
      }
      String[] name = t.getKey().split("\\.", 2);
      List<String> columns = columns(p.primary, name[0], name[1], bound);
      String query = checksumQuery(name[0], name[1], columns);
      List<String> mine = cells(p.replica.query(query, bound));
      List<String> theirs = cells(p.primary.query(query, bound));
      tables++;
      rows += Long.parseLong(theirs.get(0));
      if (!mine.equals(theirs)) {
        long here = Long.parseLong(mine.get(0));
        long there = Long.parseLong(theirs.get(0));
        // More rows are rows the other side lacks only if none is there twice: a recovery that
        // doubles rows (the full-cluster restart in the README) must not pass for one that lost.
        long twice =
            here == there
                ? 0
                : rowsHeldTwice(here > there ? p.replica : p.primary, name, columns, bound);
        replicaOnlyLacks &= here < there && twice == 0;
        primaryOnlyLacks &= here > there && twice == 0;
        differences.add(
            mine.get(0).equals(theirs.get(0))
                ? t.getKey() + ": the same " + theirs.get(0) + " rows in number, other contents"
                : t.getKey()
                    + ": "
                    + mine.get(0)
                    + " rows here, "
                    + theirs.get(0)
                    + " on the primary"
                    + (twice == 0
                        ? ""
                        : " ("
                            + twice
                            + (twice == 1 ? " row" : " rows")
                            + " held twice "
                            + (here > there ? "here" : "on the primary")
                            + ")"));
      }
    }
    for (String extra : replicaTables.keySet()) {
      if (!primaryTables.containsKey(extra)) {
        replicaOnlyLacks = false;
        differences.add(extra + " is here and not on the primary");
      }
    }
    return new Result(differences, tables, rows, skipped, replicaOnlyLacks, primaryOnlyLacks);
  }

  /**
   * One row: the table's row count and the XOR of every row's hash. NULL and '' hash apart (the
   * ISNULL flags); the hash is the first 64 bits of the row's MD5. Names are quoted: a tenant names
   * its tables.
   */
  static String checksumQuery(String schema, String table, List<String> columns) {
    return "SELECT COUNT(*) AS row_count, COALESCE(BIT_XOR(CAST(CONV(LEFT("
        + rowDigest(columns)
        + ", 16), 16, 10) AS UNSIGNED)), 0) AS row_hash FROM "
        + quoteName(schema)
        + "."
        + quoteName(table);
  }

  /**
   * One row: how many rows are an exact copy of another row (the same digest as the checksum's),
   * whatever the table's keys: a doubled row in a primary index repeats its key and its values.
   */
  static String heldTwiceQuery(String schema, String table, List<String> columns) {
    return "SELECT COUNT(*) - COUNT(DISTINCT "
        + rowDigest(columns)
        + ") AS held_twice FROM "
        + quoteName(schema)
        + "."
        + quoteName(table);
  }

  /** The MD5 of a row's values and of which of them are NULL (NULL and '' digest apart). */
  private static String rowDigest(List<String> columns) {
    String values = columns.stream().map(SqlDialect::quoteName).collect(Collectors.joining(", "));
    String nulls =
        columns.stream().map(c -> "ISNULL(" + quoteName(c) + ")").collect(Collectors.joining(", "));
    return "MD5(CONCAT_WS('#', " + values + ", CONCAT(" + nulls + ")))";
  }

  private static long rowsHeldTwice(
      InstanceClient.Session s, String[] name, List<String> columns, Duration bound)
      throws InstanceException {
    return Long.parseLong(single(s.query(heldTwiceQuery(name[0], name[1], columns), bound)));
  }

  /** schema.table to engine, every base table outside the server's own schemas. */
  private static Map<String, String> tables(InstanceClient.Session s, Duration bound)
      throws InstanceException {
    Map<String, String> out = new TreeMap<>();
    for (Map<String, String> row :
        s.query(
            "SELECT TABLE_SCHEMA, TABLE_NAME, ENGINE FROM information_schema.TABLES"
                + " WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA NOT IN "
                + SYSTEM_SCHEMAS,
            bound)) {
      List<String> c = new ArrayList<>(row.values());
      out.put(c.get(0) + "." + c.get(1), c.get(2) == null ? "" : c.get(2));
    }
    return out;
  }

  private static List<String> columns(
      InstanceClient.Session s, String schema, String table, Duration bound)
      throws InstanceException {
    List<String> out = new ArrayList<>();
    for (Map<String, String> row :
        s.query(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                + quote(schema)
                + " AND TABLE_NAME = "
                + quote(table)
                + " ORDER BY ORDINAL_POSITION",
            bound)) {
      out.add(row.values().iterator().next());
    }
    return out;
  }

  private void waitApplied(InstanceClient.Session control, String gtid, Duration wait)
      throws InstanceException {
    // The server blocks until its applier reached the point (the wait the failover uses), no
    // polling; at the UNTIL point the applier stops, so reaching it means standing on it.
    int seconds = (int) Math.max(1, wait.toSeconds());
    String waited =
        single(control.query(dialect.waitForApplied(gtid, seconds), timeout.plusSeconds(seconds)));
    String applied = single(control.query(dialect.appliedQuery()));
    if (waited == null || !dialect.waitSucceeded(Long.parseLong(waited))) {
      throw new InstanceException(
          "the replica did not apply up to the primary's snapshot "
              + gtid
              + " within "
              + seconds
              + " s (it stood at "
              + applied
              + ")");
    }
    if (!dialect.gtids().covers(gtid, applied)) {
      // It applied a commit the primary's snapshot does not show yet (AFTER_SYNC: a replica
      // may apply before its primary commits): no common point this time.
      throw new InstanceException(
          "the replica had applied past the primary's snapshot (" + gtid + "); tried again later");
    }
  }

  private void resume(InstanceClient.Session control) {
    try {
      List<String> resume = new ArrayList<>();
      resume.add(dialect.stopApplier());
      resume.addAll(dialect.startApplier());
      control.execute("resume the applier", resume);
    } catch (InstanceException e) {
      // The next round sees the applier stopped and attaches the replica again.
    }
  }

  private static void snapshot(InstanceClient.Session s) throws InstanceException {
    s.execute(
        "open a snapshot",
        List.of(
            "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "START TRANSACTION WITH CONSISTENT SNAPSHOT"));
  }

  private InstanceClient.Session open(Address a, Duration socketTimeout) throws InstanceException {
    return new InstanceClient(a, credentials, socketTimeout, dialect.jdbcOptions()).open();
  }

  private static String single(List<Map<String, String>> rows) {
    return rows.isEmpty() ? null : rows.get(0).values().iterator().next();
  }

  private static List<String> cells(List<Map<String, String>> rows) {
    return new ArrayList<>(rows.get(0).values());
  }
}
