package dev.bosun.mysql.backup;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.InstanceClient;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.plan.Address;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logical backups with the flavour's dump client, and their loading with its command-line client.
 * Credentials go in a private defaults-extra-file, never on a command line or in a log.
 */
public final class LogicalDump {

  /** Longest a client process may run before it is killed. */
  private static final Duration MAX_RUN = Duration.ofHours(6);

  private static final Set<String> SYSTEM_DATABASES =
      Set.of(
          "mysql", "information_schema", "performance_schema", "sys", SqlDialect.OPERATOR_SCHEMA);

  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Duration timeout;

  /** Dumps and loads as the operator's user of one cluster. */
  public LogicalDump(SqlDialect dialect, Credentials credentials, Duration timeout) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.timeout = timeout;
  }

  /** A stored dump and the GTID position it is consistent with. */
  public record Result(StoredObject stored, String gtid) {}

  /**
   * Dumps the user databases of {@code source} into {@code store} under {@code key}. {@code bytes}
   * follows the dump for a status: the dump file's size about once a second while the client writes
   * it, then the stored size once uploaded.
   */
  public Result dump(Address source, BackupStore store, String key, AtomicLong bytes)
      throws IOException, InstanceException {
    List<String> databases = userDatabases(source);
    if (databases.isEmpty()) {
      throw new InstanceException("the cluster has no user databases to back up yet");
    }
    Path secrets = defaultsFile();
    Path out = Files.createTempFile("bosun-dump-", ".sql");
    Path err = Files.createTempFile("bosun-dump-", ".err");
    try {
      List<String> cmd =
          new ArrayList<>(dialect.dumpCommand(source.host(), source.port(), databases));
      cmd.add(1, "--defaults-extra-file=" + secrets);
      run(cmd, null, out, err, () -> bytes.set(sizeOf(out, bytes.get())));
      bytes.set(Files.size(out));
      String gtid = null;
      try (BufferedReader r = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
        gtid = DumpText.gtid(r, dialect);
      }
      StoredObject stored;
      try (InputStream in = Files.newInputStream(out)) {
        stored = store.write(key, in);
      }
      bytes.set(stored.size());
      return new Result(stored, gtid);
    } finally {
      Files.deleteIfExists(secrets);
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /**
   * Loads a stored dump into {@code target}, leaving out the source cluster's replication position:
   * the target takes the rows as its own transactions, so its replicas receive them.
   */
  public void load(BackupStore store, String key, Address target)
      throws IOException, InstanceException {
    Path secrets = defaultsFile();
    Path filtered = Files.createTempFile("bosun-restore-", ".sql");
    Path err = Files.createTempFile("bosun-restore-", ".err");
    try {
      writeLoadable(store, key, dialect, filtered);
      List<String> cmd = new ArrayList<>(dialect.clientCommand(target.host(), target.port()));
      cmd.add(1, "--defaults-extra-file=" + secrets);
      run(cmd, filtered, null, err);
    } finally {
      Files.deleteIfExists(secrets);
      Files.deleteIfExists(filtered);
      Files.deleteIfExists(err);
    }
  }

  /**
   * Writes into {@code out} what a load of the stored dump {@code key} feeds the client: the dump
   * checked ({@link DumpText#filter}: refused whole, naming the line, when it holds a client
   * command) without the source's replication position, then the record that the load finished.
   */
  public static void writeLoadable(BackupStore store, String key, SqlDialect dialect, Path out)
      throws IOException, InstanceException {
    try (BufferedReader r =
            new BufferedReader(new InputStreamReader(store.read(key), StandardCharsets.UTF_8));
        BufferedWriter w =
            new BufferedWriter(
                new OutputStreamWriter(Files.newOutputStream(out), StandardCharsets.UTF_8))) {
      DumpText.filter(r, w, dialect);
      // Last, after every statement of the dump succeeded (the client stops at the first
      // error): the record that this load finished.
      for (String statement : dialect.restoreFinished(store.location(key))) {
        w.write(statement);
        w.write(";\n");
      }
    }
  }

  /** The databases a backup holds: everything but the system schemas. */
  List<String> userDatabases(Address source) throws InstanceException {
    List<String> dbs = new ArrayList<>();
    for (Map<String, String> row :
        new InstanceClient(source, credentials, timeout, dialect.jdbcOptions())
            .query("SHOW DATABASES", timeout)) {
      String db = row.values().iterator().next();
      if (!SYSTEM_DATABASES.contains(db.toLowerCase())) {
        dbs.add(db);
      }
    }
    return dbs;
  }

  Path defaultsFile() throws IOException {
    Path f =
        Files.createTempFile(
            "bosun-client-",
            ".cnf",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(f, clientDefaults(credentials));
    return f;
  }

  /** A client option file logging in as the operator's user of {@code credentials}. */
  public static String clientDefaults(Credentials credentials) {
    return "[client]\nuser="
        + credentials.operatorUser()
        + "\npassword=\""
        + credentials.operatorPassword().replace("\\", "\\\\").replace("\"", "\\\"")
        + "\"\n";
  }

  /** The size of a file being written, or {@code otherwise} when it cannot be read now. */
  private static long sizeOf(Path file, long otherwise) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      // Only a progress figure: the next look (or the dump's own end) tells the size.
      return otherwise;
    }
  }

  static void run(List<String> cmd, Path stdin, Path stdout, Path stderr)
      throws IOException, InstanceException {
    run(cmd, stdin, stdout, stderr, () -> {});
  }

  /** Runs a client process to its end; {@code whileRunning} is called about once a second. */
  static void run(List<String> cmd, Path stdin, Path stdout, Path stderr, Runnable whileRunning)
      throws IOException, InstanceException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(stderr.toFile());
    if (stdin != null) {
      pb.redirectInput(stdin.toFile());
    }
    if (stdout != null) {
      pb.redirectOutput(stdout.toFile());
    } else {
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    }
    Process p = pb.start();
    long deadline = System.nanoTime() + MAX_RUN.toNanos();
    try {
      while (!p.waitFor(1, TimeUnit.SECONDS)) {
        if (System.nanoTime() - deadline > 0) {
          p.destroyForcibly();
          throw new InstanceException(cmd.get(0) + " did not finish");
        }
        whileRunning.run();
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new InstanceException(cmd.get(0) + " interrupted");
    }
    if (p.exitValue() != 0) {
      throw new InstanceException(
          DumpClientFailure.describe(cmd.get(0), p.exitValue(), Files.readString(stderr)));
    }
  }
}
