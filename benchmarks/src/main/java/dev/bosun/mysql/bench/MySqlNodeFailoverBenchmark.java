package dev.bosun.mysql.bench;

import dev.bosun.common.testing.RealNodeCluster;
import dev.bosun.platform.AckedWriter;
import dev.bosun.platform.PlatformRun;
import dev.bosun.platform.RealNodeMySql;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.RealNodeSamples;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Failover time on the real node ({@code ./bosun bench mysql-node}): a MariaDB MySQLCluster of
 * three run by the MySQL operator as the chart's Pod, its primary struck {@code -Dbench.runs} times
 * (5) by each fault, with a writer through the primary Service: seconds from the fault to the first
 * acknowledged write, acknowledged rows lost, and each fault's median against {@code
 * primaryUnavailableSeconds + 3 s}.
 */
public final class MySqlNodeFailoverBenchmark {

  private static final String NS = "bench";

  private MySqlNodeFailoverBenchmark() {}

  public static void main(String[] args) {
    int runs = Integer.getInteger("bench.runs", 5);
    int unavailable = Integer.getInteger("bench.primaryUnavailableSeconds", 10);
    // No new run starts past this; every wait inside a run has its own bound.
    Instant deadline = Instant.now().plus(Duration.ofMinutes(Long.getLong("bench.minutes", 90)));
    List<PrimaryFault> faults =
        Arrays.stream(System.getProperty("bench.faults", "KILLED,FROZEN,DELETED").split(","))
            .map(PrimaryFault::valueOf)
            .toList();
    List<FailoverRun.Row> rows = new ArrayList<>();
    int exit = 0;
    try {
      System.out.println("==> starting the control plane and the real node");
      RealNodeCluster cluster = RealNodeCluster.shared();
      System.out.println("==> installing the platform chart (one Pod per operator)");
      RealNodePlatform platform = RealNodePlatform.install(cluster, 1);
      PlatformRun.takeBackStopSignals();
      cluster.node().tagImage(cluster.node().workloadsImage(), RealNodeSamples.MARIADB_IMAGE);
      RealNodePods.namespace(platform.admin(), NS, Map.of());
      RealNodeMySql db =
          new RealNodeMySql(platform, NS, "db", "writer")
              .create(
                  3,
                  "512Mi",
                  // Automatic: a frozen primary that resumes may hold the insert it took just
                  // before the freeze (errant); it is rebuilt rather than keeping the next run
                  // from starting on a Ready cluster.
                  "  failover: {primaryUnavailableSeconds: %d}\n  replication: {rebuild: Automatic}\n"
                      .formatted(unavailable));
      System.out.println("==> MySQLCluster db (MariaDB, 3 replicas) coming up");
      db.awaitReady(3, Duration.ofMinutes(8));
      db.startClient();
      db.sql(AckedWriter.SCHEMA);
      FailoverRun bench = new FailoverRun(platform, NS, db);
      int id = 0;
      // Faults take turns, so a run cut short by the deadline still has figures for each.
      for (int run = 1; run <= runs; run++) {
        for (PrimaryFault fault : faults) {
          if (!Instant.now().isBefore(deadline)) {
            throw new IllegalStateException("-Dbench.minutes ran out before run " + run);
          }
          id += 100_000;
          FailoverRun.Row row = bench.measure(fault, run, id);
          rows.add(row);
          System.out.println("[bench] " + row.sentence());
        }
      }
    } catch (RuntimeException e) {
      System.err.println("[bench] stopped: " + e);
      e.printStackTrace();
      exit = 1;
    }
    System.out.println();
    System.out.println(FailoverTable.format(rows, unavailable));
    // The fabric8 and Helm threads would keep the JVM up; the exit runs the node's teardown hook.
    System.exit(exit);
  }
}
