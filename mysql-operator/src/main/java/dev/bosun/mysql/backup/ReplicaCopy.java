package dev.bosun.mysql.backup;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.mysql.client.MariaDbGtids;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.InstanceClient;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.plan.Address;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Rebuilds a MariaDB replica from a healthy one: exports its errant transactions, wipes it, copies
 * a consistent snapshot of the source into it and gives it the snapshot's GTID position, so the
 * planner's next attach resumes replication exactly after the snapshot.
 *
 * <p>The copy is logical ({@code mariadb-dump --single-transaction} of the source, which keeps
 * replicating and acknowledging meanwhile), because members are reached only over SQL. Everything
 * loaded into the member is kept out of its binlog, so it holds no transaction of its own
 * afterwards. The operator runs {@link #prepare}; the rebuild's Job runs {@link #copy}.
 */
public final class ReplicaCopy {

  /** Dropping large databases and resetting a binlog outlast a health query's timeout. */
  private static final Duration LONG_STATEMENTS = Duration.ofMinutes(30);

  private static final int SOURCE_WAIT_SECONDS = 60;

  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Duration timeout;
  private final LogicalDump dump;

  /** A copier acting as the cluster's operator user. */
  public ReplicaCopy(SqlDialect dialect, Credentials credentials, Duration timeout) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.timeout = timeout;
    this.dump = new LogicalDump(dialect, credentials, timeout);
  }

  /**
   * What the operator's part of a rebuild did before the copy.
   *
   * @param exportRan whether the member's binlog was searched for errant transactions
   * @param errant the exported errant GTIDs (empty: nothing exported)
   * @param exportedTo where they were stored, or null
   */
  public record Prepared(boolean exportRan, List<String> errant, String exportedTo) {}

  /**
   * What the copy did.
   *
   * @param bytes the size of the copied snapshot
   * @param position the GTID position the member now starts replicating after
   */
  public record Copied(long bytes, String position) {}

  /**
   * The operator's part of rebuilding {@code target} from {@code source}: the member stops
   * replicating, the source is seen to hold all the member received, and with {@code errantAfter}
   * set, the member's transactions beyond that position are written to {@code store} under {@code
   * key}. Nothing is wiped here: {@link #copy} does that, only after this returned.
   */
  public Prepared prepare(
      Address target,
      Address source,
      String errantAfter,
      BackupStore store,
      String key,
      Consumer<String> progress)
      throws IOException, InstanceException {
    InstanceClient member = client(target);
    refuseWritable(member, target);
    // The member stops acknowledging first; then the source must hold everything the member
    // received, or the member may be the only replica copy of an acknowledged commit.
    progress.accept("stopping replication on " + target);
    member.execute("rebuild-stop", List.of("STOP SLAVE"));
    awaitSourceHolds(member, target, source);
    if (errantAfter == null) {
      return new Prepared(false, List.of(), null);
    }
    progress.accept("exporting the errant transactions of " + target);
    // The member may have applied more of its source's transactions since the round that
    // planned this: they are not its own.
    List<Map<String, String>> applied =
        member.query("SELECT @@GLOBAL.gtid_slave_pos AS applied", timeout);
    String reference =
        applied.isEmpty() || applied.get(0).get("applied") == null
            ? errantAfter
            : MariaDbGtids.advance(errantAfter, applied.get(0).get("applied"));
    Export e = export(target, reference, store, key);
    if (e.gtids().isEmpty()) {
      // The planner saw transactions beyond errantAfter: not finding them (purged binlogs, an
      // unreadable log) must not turn into wiping them.
      throw new InstanceException(
          "found no errant transaction in the binlog of "
              + target
              + " although its position shows some; nothing was wiped");
    }
    return new Prepared(true, e.gtids(), e.location());
  }

  /**
   * The copy of a rebuild, after {@link #prepare}: a consistent snapshot of {@code source} is
   * taken, then {@code target} (still read-only) is wiped, loaded with it (out of its binlog) and
   * given the snapshot's position. It runs in the rebuild's Job in the cluster's namespace: the
   * client that reads the snapshot, which the cluster's tenant can shape, runs with no more than
   * the cluster's own rights.
   */
  public Copied copy(Address target, Address source, Consumer<String> progress)
      throws IOException, InstanceException {
    InstanceClient member = client(target);
    // Taken before anything is removed: a snapshot that cannot be made leaves the member as is.
    progress.accept("copying a snapshot of " + source);
    Snapshot snapshot = snapshot(source);
    try {
      refuseWritable(member, target);
      progress.accept("removing the databases of " + target);
      List<String> wipe =
          new ArrayList<>(
              List.of("RESET SLAVE ALL", "SET GLOBAL read_only=ON", "SET sql_log_bin=0"));
      for (String db : dump.userDatabases(target)) {
        wipe.add("DROP DATABASE " + quoteName(db));
      }
      member.execute("rebuild-wipe", wipe, LONG_STATEMENTS);
      progress.accept(
          "loading "
              + snapshot.bytes() / 1_048_576
              + " MiB into "
              + target
              + " (from "
              + source
              + ")");
      load(snapshot.file(), target);
      load(snapshot.accounts(), target);
    } finally {
      Files.deleteIfExists(snapshot.file());
      Files.deleteIfExists(snapshot.accounts());
    }
    progress.accept("setting the replication position of " + target);
    // The binlog is emptied (its errant transactions were exported before) and starts at the
    // snapshot: the member then holds exactly the source's history up to it.
    member.execute(
        "rebuild-position",
        List.of(
            "RESET MASTER",
            "SET GLOBAL gtid_binlog_state=" + quote(snapshot.position()),
            "SET GLOBAL gtid_slave_pos=" + quote(snapshot.position())),
        LONG_STATEMENTS);
    return new Copied(snapshot.bytes(), snapshot.position());
  }

  /**
   * What a finished copy left in {@code target}: the GTID position it replicates after and the size
   * of its user tables, read from the member itself (not from what the copy said).
   */
  public Copied landed(Address target) throws InstanceException {
    InstanceClient member = client(target);
    refuseWritable(member, target);
    List<Map<String, String>> pos = member.query("SELECT @@GLOBAL.gtid_slave_pos AS pos", timeout);
    String position = pos.isEmpty() ? null : pos.get(0).get("pos");
    if (position == null || position.isBlank()) {
      throw new InstanceException(
          "the copy into " + target + " ended, but the member has no replication position");
    }
    List<String> databases = dump.userDatabases(target);
    if (databases.isEmpty()) {
      return new Copied(0, position);
    }
    List<Map<String, String>> size =
        member.query(
            "SELECT COALESCE(SUM(data_length + index_length), 0) AS bytes"
                + " FROM information_schema.tables WHERE table_schema IN ("
                + String.join(", ", databases.stream().map(ReplicaCopy::quote).toList())
                + ")",
            timeout);
    return new Copied(Long.parseLong(size.get(0).get("bytes")), position);
  }

  /** The primary is never rebuilt, even if the topology changed since the step was planned. */
  private void refuseWritable(InstanceClient member, Address target) throws InstanceException {
    List<Map<String, String>> rows = member.query("SELECT @@GLOBAL.read_only AS ro", timeout);
    String ro = rows.isEmpty() ? null : rows.get(0).get("ro");
    if (!"1".equals(ro)) {
      throw new InstanceException(target + " takes writes: a writable member is never rebuilt");
    }
  }

  private void awaitSourceHolds(InstanceClient member, Address target, Address source)
      throws InstanceException {
    List<Map<String, String>> status = member.query("SHOW SLAVE STATUS", timeout);
    String received = status.isEmpty() ? null : status.get(0).get("Gtid_IO_Pos");
    if (received == null || received.isBlank()) {
      return;
    }
    InstanceClient src = client(source);
    if (src.query("SHOW SLAVE STATUS", timeout).isEmpty()) {
      // The source is the primary (the one copy left): what it sent is in its own binlog, which
      // MASTER_GTID_WAIT (it reads the replicated position) would wait on for ever.
      List<Map<String, String>> binlog =
          src.query("SELECT @@GLOBAL.gtid_binlog_pos AS pos", timeout);
      String pos = binlog.isEmpty() ? null : binlog.get(0).get("pos");
      if (pos == null || !new MariaDbGtids().covers(pos, received)) {
        throw new InstanceException(
            source
                + " does not hold everything "
                + target
                + " received ("
                + received
                + "; it holds "
                + pos
                + "); nothing was wiped");
      }
      return;
    }
    List<Map<String, String>> waited =
        src.query(
            "SELECT MASTER_GTID_WAIT(" + quote(received) + ", " + SOURCE_WAIT_SECONDS + ") AS w",
            timeout.plusSeconds(SOURCE_WAIT_SECONDS));
    if (waited.isEmpty() || !"0".equals(waited.get(0).get("w"))) {
      throw new InstanceException(
          source
              + " did not apply everything "
              + target
              + " received ("
              + received
              + ") within "
              + SOURCE_WAIT_SECONDS
              + "s; nothing was wiped");
    }
  }

  private record Export(List<String> gtids, String location) {}

  private Export export(Address target, String errantAfter, BackupStore store, String key)
      throws IOException, InstanceException {
    List<Map<String, String>> logs = client(target).query("SHOW BINARY LOGS", timeout);
    if (logs.isEmpty()) {
      return new Export(List.of(), null);
    }
    String first = logs.get(0).get("Log_name");
    Path secrets = dump.defaultsFile();
    Path raw = Files.createTempFile("bosun-binlog-", ".sql");
    Path kept = Files.createTempFile("bosun-errant-", ".sql");
    Path err = Files.createTempFile("bosun-binlog-", ".err");
    try {
      LogicalDump.run(
          List.of(
              "mariadb-binlog",
              "--defaults-extra-file=" + secrets,
              "--read-from-remote-server",
              "--host=" + target.host(),
              "--port=" + target.port(),
              "--protocol=TCP",
              "--verbose",
              "--to-last-log",
              first),
          null,
          raw,
          err);
      List<String> gtids;
      try (BufferedReader r = Files.newBufferedReader(raw, StandardCharsets.UTF_8);
          BufferedWriter w = Files.newBufferedWriter(kept, StandardCharsets.UTF_8)) {
        w.write(
            "-- Errant transactions of "
                + target
                + ": its binlog's transactions beyond GTID position '"
                + errantAfter
                + "', exported by bosun before the member was rebuilt. Apply with mariadb"
                + " only after reading them.\n");
        gtids = ErrantBinlog.filter(r, w, errantAfter);
      }
      if (gtids.isEmpty()) {
        return new Export(List.of(), null);
      }
      try (InputStream in = Files.newInputStream(kept)) {
        return new Export(gtids, store.write(key, in).location());
      }
    } finally {
      Files.deleteIfExists(secrets);
      Files.deleteIfExists(raw);
      Files.deleteIfExists(kept);
      Files.deleteIfExists(err);
    }
  }

  private record Snapshot(Path file, Path accounts, long bytes, String position) {}

  /** The source's user databases and accounts, consistent with one GTID position. */
  private Snapshot snapshot(Address source) throws IOException, InstanceException {
    List<String> databases = dump.userDatabases(source);
    if (databases.isEmpty()) {
      throw new InstanceException(
          source + " has no user database: there is nothing to copy, rebuild it later");
    }
    Path secrets = dump.defaultsFile();
    Path out = Files.createTempFile("bosun-rebuild-", ".sql");
    Path rawUsers = Files.createTempFile("bosun-rebuild-users-", ".sql");
    Path err = Files.createTempFile("bosun-rebuild-", ".err");
    Path data = Files.createTempFile("bosun-rebuild-", ".sql");
    Path users = Files.createTempFile("bosun-rebuild-users-", ".sql");
    boolean taken = false;
    try {
      List<String> cmd =
          new ArrayList<>(dialect.dumpCommand(source.host(), source.port(), databases));
      cmd.add(1, "--defaults-extra-file=" + secrets);
      InstanceClient src = client(source);
      // The source's applier pauses for both dumps (its receiver goes on acknowledging): tables
      // of every engine, not only InnoDB's, and the accounts match the recorded position.
      boolean replicating = !src.query("SHOW SLAVE STATUS", timeout).isEmpty();
      if (replicating) {
        src.execute("rebuild-source-pause", List.of("STOP SLAVE SQL_THREAD"));
      }
      try {
        LogicalDump.run(cmd, null, out, err);
        LogicalDump.run(accountsCommand(source, secrets, databases.get(0)), null, rawUsers, err);
      } finally {
        if (replicating) {
          src.execute("rebuild-source-resume", List.of("START SLAVE SQL_THREAD"));
        }
      }
      String position = lastPosition(out);
      if (position == null) {
        throw new InstanceException("the snapshot of " + source + " names no GTID position");
      }
      try (BufferedReader r = Files.newBufferedReader(out, StandardCharsets.UTF_8);
          BufferedWriter w = Files.newBufferedWriter(data, StandardCharsets.UTF_8)) {
        // The position is set after the load, with the binlog reset: not by the dump.
        DumpText.filter(r, w, dialect);
      }
      try (BufferedReader r = Files.newBufferedReader(rawUsers, StandardCharsets.UTF_8);
          BufferedWriter w = Files.newBufferedWriter(users, StandardCharsets.UTF_8)) {
        DumpText.withoutAccounts(r, w, List.of(credentials.operatorUser(), "root", "mariadb.sys"));
      }
      taken = true;
      return new Snapshot(data, users, Files.size(data), position);
    } finally {
      Files.deleteIfExists(secrets);
      Files.deleteIfExists(out);
      Files.deleteIfExists(rawUsers);
      Files.deleteIfExists(err);
      if (!taken) {
        Files.deleteIfExists(data);
        Files.deleteIfExists(users);
      }
    }
  }

  /**
   * The application's accounts (CREATE OR REPLACE: a rebuilt member may become the primary one
   * day), dumped on their own so that the account filter never reads a routine's body.
   */
  private static List<String> accountsCommand(Address source, Path secrets, String anyDatabase) {
    return List.of(
        "mariadb-dump",
        "--defaults-extra-file=" + secrets,
        "--host=" + source.host(),
        "--port=" + source.port(),
        "--protocol=TCP",
        "--system=users",
        "--replace",
        "--no-data",
        "--no-create-info",
        "--no-create-db",
        "--skip-triggers",
        // No LOCK TABLES on the named database (it dumps no table of it): on a primary whose
        // commits wait for a semi-sync acknowledgement it would wait behind them for ever.
        "--skip-lock-tables",
        "--databases",
        anyDatabase);
  }

  /** The snapshot's position, as the dump states it. */
  private String lastPosition(Path dumpFile) throws IOException {
    try (BufferedReader r = Files.newBufferedReader(dumpFile, StandardCharsets.UTF_8)) {
      return DumpText.gtid(r, dialect);
    }
  }

  private void load(Path snapshot, Address target) throws IOException, InstanceException {
    Path secrets = dump.defaultsFile();
    Path err = Files.createTempFile("bosun-rebuild-", ".err");
    try {
      List<String> cmd = new ArrayList<>(dialect.clientCommand(target.host(), target.port()));
      cmd.add(1, "--defaults-extra-file=" + secrets);
      // Nothing loaded may become a transaction of the member's own.
      cmd.add("--init-command=SET sql_log_bin=0");
      LogicalDump.run(cmd, snapshot, null, err);
    } finally {
      Files.deleteIfExists(secrets);
      Files.deleteIfExists(err);
    }
  }

  private InstanceClient client(Address a) {
    return new InstanceClient(a, credentials, timeout, dialect.jdbcOptions());
  }

  private static String quote(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  private static String quoteName(String s) {
    return "`" + s.replace("`", "``") + "`";
  }
}
