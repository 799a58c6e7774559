package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.drill.AckedWriter;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MySQLOperatorFixture;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A MariaDB cluster deleted and created again over its kept volumes right after a failover, on the
 * real control plane with real servers: the new object's status is empty, so nothing records the
 * promotion point. The old primary db-0 holds transactions it wrote and nobody acknowledged, the
 * new primary db-1 (and db-2, its replica) acknowledged transactions db-0 lacks, and db-0's last
 * sequence number is the highest. Neither history contains the other: the operator must promote
 * neither and say so, and once a person discards db-0's history (an empty volume) every
 * acknowledged write must be on the primary and on every replica.
 */
@ExtendWith(ControlPlaneExtension.class)
class RecreateOverVolumesIT {

  @RegisterExtension static final MySQLOperatorFixture FX = new MySQLOperatorFixture("recreate");

  private static final String SPEC =
      "flavour: MariaDB\nversion: '10.11'\nreplicas: 3\n"
          + "failover: {primaryUnavailableSeconds: 2}\n";

  /**
   * Where the ids start of the writes sent to the old primary while it could get no
   * acknowledgement.
   */
  private static final long STRANDED_IDS = 2_000_000;

  private static final int STRANDED_WRITES = 30;

  /** Where the writer sends its next row: the primary as the test knows it. */
  private volatile Address target;

  private MySQLCluster get() {
    return FX.cluster("db");
  }

  private String primary() {
    MySQLCluster c = get();
    return c == null || c.getStatus() == null ? null : c.getStatus().getPrimary();
  }

  private String ready() {
    MySQLCluster c = get();
    if (c == null || c.getStatus() == null) {
      return null;
    }
    return Conditions.find(c.getStatus().getConditions(), "Ready")
        .map(x -> x.getStatus() + "/" + x.getReason() + ": " + x.getMessage())
        .orElse(null);
  }

  private Address address(String pod) {
    return FX.server(pod).address();
  }

  private void create() {
    Crds.createRaw(
        FX.client(), "mysql.bosun.dev/v1alpha1", "MySQLCluster", FX.namespace(), "db", SPEC);
  }

  @Test
  void aClusterRecreatedOverDivergedVolumesPromotesNeitherHistory() throws Exception {
    FX.serversFor("db", 3);
    create();
    await("Ready with db-0 the primary")
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                String.valueOf(ready()).startsWith("True/Replicating") && "db-0".equals(primary()));
    AppClient.createSchema(address("db-0"));
    target = address("db-0");
    AckedWriter writer =
        AckedWriter.start(
            "writer",
            seq -> AppClient.insert(target, seq),
            Duration.ofMillis(50),
            100_000,
            Duration.ofMinutes(5));
    await().atMost(Duration.ofSeconds(30)).until(() -> writer.acknowledgedCount() >= 30);

    // The operator stops (its next process reads the status), the replicas stop receiving (the
    // first step of a failover, or a partition), and db-0 commits writes no replica acknowledges:
    // they are in its binlog and wait there until it is killed.
    FX.operator().stop();
    target = null;
    await("the writer's last write to db-0 ended")
        .atMost(Duration.ofSeconds(30))
        .until(() -> writer.attempts() == writer.acknowledgedCount() + writer.failures());
    long onDb0 = writer.acknowledgedCount();
    AppClient.awaitApplied(address("db-0"), List.of(address("db-1"), address("db-2")));
    for (String replica : List.of("db-1", "db-2")) {
      AppClient.adminQuery(address(replica), "STOP SLAVE IO_THREAD");
    }
    long before = sequence(address("db-0"));
    // All of them in one binlog group, as under many concurrent clients: a group waiting for its
    // acknowledgement keeps the groups after it out of the binlog, so one at a time only one or two
    // commits would get there, fewer than db-1 writes after the failover.
    AppClient.adminQuery(
        address("db-0"),
        "SET GLOBAL binlog_commit_wait_count="
            + STRANDED_WRITES
            + ", binlog_commit_wait_usec=10000000");
    ExecutorService stranded = Executors.newFixedThreadPool(STRANDED_WRITES);
    List<Future<?>> strandedWrites = new ArrayList<>();
    for (int i = 0; i < STRANDED_WRITES; i++) {
      long id = STRANDED_IDS + i;
      strandedWrites.add(
          stranded.submit(
              () -> {
                AppClient.insert(address("db-0"), id);
                return null;
              }));
    }
    await("db-0 logged its unacknowledged writes")
        .atMost(Duration.ofSeconds(20))
        .until(() -> sequence(address("db-0")) == before + STRANDED_WRITES);
    String db0History = AppClient.adminQuery(address("db-0"), "SELECT @@GLOBAL.gtid_binlog_pos");
    FX.server("db-0").kill();
    SortedSet<Long> acked = new TreeSet<>(writer.acknowledged());
    for (int i = 0; i < STRANDED_WRITES; i++) {
      // A write that returned was acknowledged, and must survive like any other.
      if (succeeded(strandedWrites.get(i))) {
        acked.add(STRANDED_IDS + i);
      }
    }
    stranded.shutdownNow();
    // Nobody could acknowledge them: the scenario needs db-0 to hold writes no client was promised.
    assertThat(acked).as("writes acknowledged by db-0 alone").hasSize((int) onDb0);

    // A new operator process fails over to db-1, which takes acknowledged writes of its own.
    FX.operator().start();
    await("failover to db-1").atMost(Duration.ofSeconds(60)).until(() -> "db-1".equals(primary()));
    target = address("db-1");
    await("writes acknowledged by db-1")
        .atMost(Duration.ofSeconds(30))
        .until(() -> writer.acknowledgedCount() >= onDb0 + 3);
    writer.stop();
    acked.addAll(writer.acknowledged());
    String db1History = AppClient.adminQuery(address("db-1"), "SELECT @@GLOBAL.gtid_binlog_pos");
    // What makes the fork dangerous: db-0's last sequence number is the highest.
    assertThat(sequence(address("db-1")))
        .as("db-1 at " + db1History + ", db-0 at " + db0History)
        .isLessThan(before + STRANDED_WRITES);
    AppClient.awaitApplied(address("db-1"), List.of(address("db-2")));

    // The user deletes the cluster and applies it again: the Pods go (their servers stop), the
    // volumes stay, and every server boots read-only on its old data.
    FX.client().resources(MySQLCluster.class).inNamespace(FX.namespace()).withName("db").delete();
    await("the cluster and its StatefulSet deleted")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                get() == null
                    && FX.client()
                            .apps()
                            .statefulSets()
                            .inNamespace(FX.namespace())
                            .withName("db")
                            .get()
                        == null);
    FX.server("db-1").stop();
    FX.server("db-2").stop();
    for (String pod : List.of("db-0", "db-1", "db-2")) {
      FX.server(pod).start();
    }
    create();

    await("the operator decides how to start the re-created cluster")
        .atMost(Duration.ofSeconds(60))
        .until(() -> primary() != null || String.valueOf(ready()).contains("DivergedHistories"));
    String promoted = primary();
    assertThat(promoted)
        .as(
            "a primary promoted over diverged histories; acknowledged rows it lacks: %s",
            promoted == null ? List.of() : missing(acked, address(promoted)))
        .isNull();
    assertThat(ready())
        .startsWith("False/DivergedHistories")
        .contains("db-0", "db-1", db0History, db1History, "rebuild");
    for (String pod : List.of("db-0", "db-1", "db-2")) {
      assertThat(AppClient.adminQuery(address(pod), "SELECT @@GLOBAL.read_only"))
          .as("read_only of " + pod)
          .isEqualTo("1");
    }
    await("a DivergedHistories Event")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                FX.client().v1().events().inNamespace(FX.namespace()).list().getItems().stream()
                    .filter(e -> "DivergedHistories".equals(e.getReason()))
                    .map(Event::getMessage)
                    .anyMatch(m -> m.contains("db-0") && m.contains("db-1")));

    // The person keeps db-1's history: db-0 gets an empty volume and replicates it.
    FX.fleet().loseData(FX.server("db-0"));
    FX.server("db-0").start();
    await("Ready with db-1 the primary")
        .atMost(Duration.ofSeconds(120))
        .until(() -> String.valueOf(ready()).startsWith("True/Replicating"));
    assertThat(primary()).isEqualTo("db-1");
    AppClient.awaitApplied(address("db-1"), List.of(address("db-0"), address("db-2")));
    for (String pod : List.of("db-1", "db-0", "db-2")) {
      assertThat(missing(acked, address(pod)))
          .as("acknowledged rows missing on " + pod + " of " + acked.size())
          .isEmpty();
    }
  }

  /** The sequence number of the server's last logged transaction (domain 0). */
  private static long sequence(Address a) throws Exception {
    String pos = AppClient.adminQuery(a, "SELECT @@GLOBAL.gtid_binlog_pos");
    return Long.parseLong(pos.substring(pos.lastIndexOf('-') + 1));
  }

  private static boolean succeeded(Future<?> write) throws InterruptedException {
    try {
      write.get(30, TimeUnit.SECONDS);
      return true;
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return false;
    }
  }

  private static SortedSet<Long> missing(SortedSet<Long> acked, Address a) throws Exception {
    SortedSet<Long> lost = new TreeSet<>(acked);
    AppClient.ids(a).forEach(lost::remove);
    return lost;
  }
}
