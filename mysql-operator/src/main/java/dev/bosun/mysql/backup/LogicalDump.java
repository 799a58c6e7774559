package dev.bosun.mysql.backup;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.workload.Credentials;
import dev.bosun.mysql.workload.InstanceClient;
import dev.bosun.mysql.workload.InstanceException;
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

/**
 * Logical backups with the flavour's dump client, and their loading with its command-line client.
 * Credentials go in a private defaults-extra-file, never on a command line or in a log.
 */
public final class LogicalDump {

  private static final Set<String> SYSTEM_DATABASES =
      Set.of("mysql", "information_schema", "performance_schema", "sys");

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

  /** Dumps the user databases of {@code source} into {@code store} under {@code key}. */
  public Result dump(Address source, BackupStore store, String key)
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
      run(cmd, null, out, err);
      String gtid = null;
      try (BufferedReader r = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
        gtid = DumpText.gtid(r, dialect, 200);
      }
      try (InputStream in = Files.newInputStream(out)) {
        return new Result(store.write(key, in), gtid);
      }
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
      try (BufferedReader r =
              new BufferedReader(new InputStreamReader(store.read(key), StandardCharsets.UTF_8));
          BufferedWriter w =
              new BufferedWriter(
                  new OutputStreamWriter(
                      Files.newOutputStream(filtered), StandardCharsets.UTF_8))) {
        DumpText.filter(r, w, dialect);
      }
      List<String> cmd = new ArrayList<>(dialect.clientCommand(target.host(), target.port()));
      cmd.add(1, "--defaults-extra-file=" + secrets);
      run(cmd, filtered, null, err);
    } finally {
      Files.deleteIfExists(secrets);
      Files.deleteIfExists(filtered);
      Files.deleteIfExists(err);
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
    Files.writeString(
        f,
        "[client]\nuser="
            + credentials.operatorUser()
            + "\npassword=\""
            + credentials.operatorPassword().replace("\\", "\\\\").replace("\"", "\\\"")
            + "\"\n");
    return f;
  }

  static void run(List<String> cmd, Path stdin, Path stdout, Path stderr)
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
    try {
      if (!p.waitFor(6, TimeUnit.HOURS)) {
        p.destroyForcibly();
        throw new InstanceException(cmd.get(0) + " did not finish");
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
