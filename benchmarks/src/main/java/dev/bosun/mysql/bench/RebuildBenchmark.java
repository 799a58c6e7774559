package dev.bosun.mysql.bench;

import dev.bosun.mysql.backup.ReplicaCopy;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MariaDbServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Time to rebuild a replica holding {@code -Dbench.megabytes} (1024) of rows on real MariaDB
 * servers: the operator's copy (export, wipe, consistent snapshot of the source, load without
 * binlog, GTID position) against a plain client baseline in the same run ({@code mariadb-dump
 * --single-transaction | mariadb} into an empty server).
 */
public final class RebuildBenchmark {

  private RebuildBenchmark() {}

  public static void main(String[] args) throws Exception {
    int megabytes = Integer.getInteger("bench.megabytes", 1024);
    try (MariaDbServers fleet = new MariaDbServers()) {
      Address source = fleet.create("source", 1).start().address();
      Address member = fleet.create("member", 2).start().address();
      Address plain = fleet.create("plain", 3).start().address();
      long t0 = System.nanoTime();
      fill(source, megabytes);
      long dataBytes = dataBytes(source);
      System.out.printf(
          "source holds %d MiB of rows (filled in %.1f s)%n",
          dataBytes / 1_048_576, (System.nanoTime() - t0) / 1e9);
      // The member is a stale copy with rows of its own, as a replica to rebuild would be.
      AppClient.createSchema(member);
      AppClient.adminQuery(member, "INSERT INTO app.items VALUES (1, 'stale')");

      long b0 = System.nanoTime();
      baseline(source, plain);
      double baseline = (System.nanoTime() - b0) / 1e9;
      System.out.printf("plain mariadb-dump | mariadb: %.1f s%n", baseline);

      long c0 = System.nanoTime();
      ReplicaCopy copy =
          new ReplicaCopy(new MariaDbDialect(), MariaDbServers.CREDENTIALS, Duration.ofSeconds(10));
      Consumer<String> progress =
          doing -> System.out.printf("  %.1f s: %s%n", (System.nanoTime() - c0) / 1e9, doing);
      // The operator's part and the copy Job's part, here in one process.
      copy.prepare(member, source, null, null, null, progress);
      ReplicaCopy.Copied r = copy.copy(member, source, progress);
      double rebuild = (System.nanoTime() - c0) / 1e9;
      System.out.printf(
          "rebuild: %.1f s for %d MiB of rows (snapshot file %d MiB), position %s%n",
          rebuild, dataBytes / 1_048_576, r.bytes() / 1_048_576, r.position());
      System.out.printf("ratio rebuild / plain client: %.2f%n", rebuild / baseline);
    }
  }

  /** Rows of about 1 KiB until the table holds {@code megabytes}. */
  private static void fill(Address a, int megabytes) throws Exception {
    AppClient.createSchema(a);
    try (Connection c = AppClient.admin(a);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE app.payload (id BIGINT PRIMARY KEY, pad VARCHAR(1000))");
      // InnoDB stores a 1 KiB row in a little less than 1 KiB of data pages.
      long rows = megabytes * 1056L;
      for (long from = 0; from < rows; from += 50_000) {
        long to = Math.min(rows, from + 50_000);
        s.execute(
            "INSERT INTO app.payload SELECT seq, REPEAT(MD5(seq), 31) FROM app.seq_"
                + (from + 1)
                + "_to_"
                + to);
      }
    }
  }

  private static long dataBytes(Address a) throws Exception {
    return Long.parseLong(
        AppClient.adminQuery(
            a, "SELECT SUM(data_length) FROM information_schema.tables WHERE table_schema='app'"));
  }

  private static void baseline(Address source, Address target) throws Exception {
    Path cnf = Files.createTempFile("bench-", ".cnf");
    Files.writeString(
        cnf,
        "[client]\nuser="
            + MariaDbServers.CREDENTIALS.operatorUser()
            + "\npassword="
            + MariaDbServers.CREDENTIALS.operatorPassword()
            + "\n");
    String dump =
        String.join(
            " ",
            List.of(
                "mariadb-dump",
                "--defaults-extra-file=" + cnf,
                "--host=" + source.host(),
                "--port=" + source.port(),
                "--protocol=TCP",
                "--single-transaction",
                "--databases app"));
    String load =
        "mariadb --defaults-extra-file="
            + cnf
            + " --host="
            + target.host()
            + " --port="
            + target.port()
            + " --protocol=TCP";
    Process p = new ProcessBuilder("sh", "-c", dump + " | " + load).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("baseline copy failed");
    }
    Files.delete(cnf);
  }
}
