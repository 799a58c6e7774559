package dev.bosun.mysql.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.drill.AckedWriter;
import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.DrillTable;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.common.testing.drill.TestHost;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.LabOperator;
import dev.bosun.mysql.testing.MariaDbServers;
import dev.bosun.mysql.testing.WritableSampler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Partition, pause and crash drills: three real MariaDB servers, each in its own network namespace
 * (a test host of the drill harness); the operator (the replication controller the reconciler runs)
 * connects from its own client identity, the application's writer from another, so links are cut
 * one by one. After each drill: no acknowledged row lost, never more than one writable member in
 * any sample, the cluster steady again.
 */
class MySQLFailoverDrillIT {

  private static final int PORT = 3306;
  private static final DrillTable TABLE =
      new DrillTable(
          "mysql", List.of("drill", "acknowledged", "lost", "max writable", "seconds to Ready"));
  private static NetworkLab lab;
  private static final List<TestHost> HOSTS = new ArrayList<>();
  private static ClientIdentity operatorId;
  private static ClientIdentity writerId;

  private MariaDbServers fleet;
  private final Map<String, MariaDbServers.Server> servers = new LinkedHashMap<>();
  private final LabOperator cluster = new LabOperator(operatorId.address());
  private WritableSampler sampler;

  /** The operator dying at a failover boundary (a drill stops the executor there). */
  static final class OperatorDied extends RuntimeException {
    OperatorDied(String boundary) {
      super("operator died at " + boundary);
    }
  }

  @BeforeAll
  static void lab() {
    lab = NetworkLab.create("mysql-drill");
    for (int i = 0; i < 3; i++) {
      HOSTS.add(lab.host("m" + i));
    }
    operatorId = lab.client("operator");
    writerId = lab.client("writer");
  }

  @AfterAll
  static void report() {
    TABLE.print();
    TABLE.writeMarkdown(Path.of("target/drill-results/mysql.md"));
    lab.close();
  }

  @AfterEach
  void stop() {
    tearDownCluster();
  }

  private void tearDownCluster() {
    if (sampler != null) {
      sampler.stop();
      sampler = null;
    }
    lab.healAll();
    if (fleet != null) {
      fleet.close();
      fleet = null;
    }
    servers.clear();
    cluster.reset();
  }

  /** Three servers, one per test host, driven to a steady cluster with db-0 the primary. */
  private TopologyController startCluster() {
    fleet = new MariaDbServers();
    for (int i = 0; i < 3; i++) {
      TestHost h = HOSTS.get(i);
      String name = "db-" + i;
      MariaDbServers.Server s = fleet.create(name, 100 + i, h.address(), PORT, h::wrap).start();
      servers.put(name, s);
      cluster.add(name, s.address());
    }
    TopologyController c = cluster.controller(FailoverBoundaries.none());
    cluster.driveUntilSteady(c, null);
    assertThat(cluster.record().primary()).isEqualTo("db-0");
    try {
      AppClient.createSchema(cluster.address("db-0"));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    sampler = WritableSampler.readOnlyOff(cluster.addresses());
    return c;
  }

  private AckedWriter writer() {
    return awaitWriting(
        AckedWriter.start(
            "writer",
            seq -> AppClient.insertFrom(writerId.address(), cluster.primaryAddress(), seq),
            Duration.ofMillis(20),
            5_000,
            Duration.ofMinutes(3)));
  }

  /** Where the root writer's ids start: its sequence numbers are its rows' ids less this. */
  private static final long ROOT_IDS = 1_000_000;

  /** A writer as root@'%' (ids from {@link #ROOT_IDS}), the account a fence must stop as well. */
  private AckedWriter rootWriter() {
    return awaitWriting(
        AckedWriter.start(
            "root-writer",
            seq ->
                AppClient.insertAsRootFrom(
                    writerId.address(), cluster.primaryAddress(), ROOT_IDS + seq),
            Duration.ofMillis(20),
            5_000,
            Duration.ofMinutes(3)));
  }

  private static AckedWriter awaitWriting(AckedWriter w) {
    await().atMost(Duration.ofSeconds(30)).until(() -> w.acknowledgedCount() >= 30);
    return w;
  }

  /** Stops the writers and the sampler and adds the drill's row; asserts its promises. */
  private void finish(String drill, AckedWriter w, long faultNanos, long readyNanos)
      throws Exception {
    finish(drill, Map.of(w, 0L), faultNanos, readyNanos);
  }

  /**
   * The same for several writers, each with the id its sequence number 0 was written as (a writer's
   * acknowledgements are sequence numbers).
   */
  private void finish(
      String drill, Map<AckedWriter, Long> firstIds, long faultNanos, long readyNanos)
      throws Exception {
    List<AckedWriter> writers = List.copyOf(firstIds.keySet());
    // Writes go on through the cluster as it is now, and count too.
    for (AckedWriter w : writers) {
      long atReady = w.acknowledgedCount();
      await("writes after Ready by " + w)
          .atMost(Duration.ofSeconds(30))
          .until(() -> w.acknowledgedCount() >= atReady + 20);
    }
    SortedSet<Long> acked = new TreeSet<>();
    for (AckedWriter w : writers) {
      w.stop();
      w.acknowledged().forEach(seq -> acked.add(firstIds.get(w) + seq));
    }
    sampler.stop();
    Set<Long> present = new HashSet<>(AppClient.ids(cluster.primaryAddress()));
    SortedSet<Long> lost = new TreeSet<>(acked);
    lost.removeAll(present);
    String seconds = String.format("%.1f", (readyNanos - faultNanos) / 1e9);
    TABLE.row(drill, acked.size(), lost.size(), sampler.maxWritable(), seconds);
    assertThat(acked).as("acknowledged rows in " + drill).isNotEmpty();
    assertThat(lost).as("acknowledged rows lost in " + drill).isEmpty();
    assertThat(sampler.maxWritable()).as("writable members at once in " + drill).isLessThan(2);
  }

  @Test
  void operatorCutOffFromThePrimaryWhileClientsAndReplicasStillReachIt() throws Exception {
    TopologyController op = startCluster();
    AckedWriter w = writer();
    long fault = System.nanoTime();
    lab.cut(operatorId, HOSTS.get(0));
    // Long past the detection timeout: the replicas still receive from db-0, so no failover.
    await()
        .during(Duration.ofSeconds(8))
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> "db-0".equals(cluster.tick(op).record().primary()));
    assertThat(cluster.last().plan().step().toString()).contains("PrimaryAliveForReplicas");
    long acknowledgedDuringCut = w.acknowledgedCount();
    lab.heal(operatorId, HOSTS.get(0));
    cluster.driveUntilSteady(op, null);
    long ready = System.nanoTime();
    assertThat(acknowledgedDuringCut).isGreaterThan(30);
    finish("operator cut off from primary", w, fault, ready);
  }

  @Test
  void primaryCutOffFromItsReplicasWhileClientsStillReachIt() throws Exception {
    TopologyController op = startCluster();
    AckedWriter w = writer();
    long fault = System.nanoTime();
    lab.cut(HOSTS.get(0), HOSTS.get(1));
    lab.cut(HOSTS.get(0), HOSTS.get(2));
    // The operator still sees a writable primary: it stays; its commits wait for a replica.
    await()
        .during(Duration.ofSeconds(8))
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> "db-0".equals(cluster.tick(op).record().primary()));
    lab.healAll();
    cluster.driveUntilSteady(op, null);
    long ready = System.nanoTime();
    finish("primary cut off from its replicas", w, fault, ready);
  }

  @Test
  void theMostAdvancedReplicasApplierPausedThenThePrimaryKilled() throws Exception {
    TopologyController op = startCluster();
    AckedWriter w = writer();
    long fault = System.nanoTime();
    // db-2 stops receiving; db-1 receives (and acknowledges) everything but applies nothing.
    AppClient.adminQuery(cluster.address("db-2"), "STOP SLAVE IO_THREAD");
    AppClient.adminQuery(cluster.address("db-1"), "STOP SLAVE SQL_THREAD");
    long before = w.acknowledgedCount();
    await().atMost(Duration.ofSeconds(30)).until(() -> w.acknowledgedCount() >= before + 30);
    servers.get("db-0").kill();
    await("failover")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !"db-0".equals(cluster.tick(op).record().primary()));
    assertThat(cluster.record().primary()).isEqualTo("db-1");
    cluster.driveUntilSteady(op, "db-0");
    long ready = System.nanoTime();
    finish("applier of the most advanced replica paused, primary killed", w, fault, ready);
  }

  @Test
  void primaryFrozenFailedOverThenResumed() throws Exception {
    startCluster();
    List<String> timeline = new ArrayList<>();
    long[] fault = new long[1];
    // An operator that notes when the failover reaches each of its steps.
    TopologyController op =
        cluster.controller(
            b ->
                timeline.add(String.format("%5.1f s %s", (System.nanoTime() - fault[0]) / 1e9, b)));
    AckedWriter w = writer();
    fault[0] = System.nanoTime();
    servers.get("db-0").pause();
    await("failover away from the frozen primary")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              TopologyController.Tick t = cluster.tick(op);
              String line =
                  String.format(
                      "%5.1f s %s",
                      (System.nanoTime() - fault[0]) / 1e9,
                      dev.bosun.mysql.plan.StepText.sentence(
                          t.plan().step(), t.error() == null ? "" : t.error()));
              if (timeline.isEmpty()
                  || !timeline.get(timeline.size() - 1).substring(8).equals(line.substring(8))) {
                timeline.add(line);
              }
              return !"db-0".equals(cluster.record().primary());
            });
    long failedOver = System.nanoTime();
    timeline.forEach(l -> System.err.println("[drill] " + l));
    System.err.printf(
        "[drill] frozen primary failed over in %.1f s%n", (failedOver - fault[0]) / 1e9);
    assertThat(cluster.record().primary()).isNotEqualTo("db-0");
    // Writable members are sampled until the resume: a resumed server is writable (read_only
    // off) until the operator's next round fences it, which nothing can prevent while it is
    // frozen. What matters is that it acknowledges nothing meanwhile.
    sampler.stop();
    servers.get("db-0").resume();
    long probe = 900_000_000L;
    assertThatThrownBy(
            () -> AppClient.insertFrom(writerId.address(), cluster.address("db-0"), probe))
        .as("a write to the resumed old primary, before the operator fenced it")
        .isInstanceOf(java.sql.SQLException.class);
    cluster.driveUntilSteady(op, "db-0");
    long ready = System.nanoTime();
    assertThat(AppClient.ids(cluster.primaryAddress()))
        .as("the resumed old primary's write on the new primary")
        .doesNotContain(probe);
    finish("primary frozen, failed over, resumed", w, fault[0], ready);
  }

  @Test
  void scaleDownWhileAReplicaLags() throws Exception {
    TopologyController op = startCluster();
    AckedWriter w = writer();
    long fault = System.nanoTime();
    // db-1 stays and lags (its applier stopped); db-2 is scaled away.
    AppClient.adminQuery(cluster.address("db-1"), "STOP SLAVE SQL_THREAD");
    long before = w.acknowledgedCount();
    await().atMost(Duration.ofSeconds(30)).until(() -> w.acknowledgedCount() >= before + 20);
    cluster.tick(op);
    // What the reconciler asks before it shrinks the StatefulSet: with db-1 lagging, only the
    // primary would hold what db-2 acknowledged, so the scale-down waits (chaos seed 371178).
    assertThat(
            dev.bosun.mysql.plan.ScaleDown.holdBack(
                cluster.last().observed(), 2, new dev.bosun.mysql.client.MariaDbGtids()))
        .contains("no remaining replica has applied");
    AppClient.adminQuery(cluster.address("db-1"), "START SLAVE SQL_THREAD");
    await("the scale-down allowed once db-1 applied what db-2 holds")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              cluster.tick(op);
              return dev.bosun.mysql.plan.ScaleDown.holdBack(
                      cluster.last().observed(), 2, new dev.bosun.mysql.client.MariaDbGtids())
                  == null;
            });
    cluster.desired(2);
    servers.get("db-2").kill();
    cluster.remove("db-2");
    // The lagging replica is re-attached and catches up; the two left are steady.
    cluster.driveUntilSteady(op, null);
    long ready = System.nanoTime();
    finish("scale-down while a replica lags", w, fault, ready);
    Set<Long> onPrimary = new HashSet<>(AppClient.ids(cluster.address("db-0")));
    await("the lagging replica caught up")
        .atMost(Duration.ofSeconds(30))
        .until(() -> new HashSet<>(AppClient.ids(cluster.address("db-1"))).containsAll(onPrimary));
  }

  @Test
  void switchoverThenFailoverUnderARootAndAnApplicationWriter() throws Exception {
    // root holds no READ_ONLY ADMIN (the operator takes it): the fence stops its writes too, so
    // none lands on a fenced primary and is lost when another member is promoted.
    TopologyController op = startCluster();
    AckedWriter app = writer();
    AckedWriter root = rootWriter();
    long fault = System.nanoTime();
    cluster.switchoverTarget("db-1");
    await("switchover")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> "db-1".equals(cluster.tick(op).record().primary()));
    cluster.switchoverTarget(null);
    cluster.driveUntilSteady(op, null);
    long before = root.acknowledgedCount();
    await().atMost(Duration.ofSeconds(30)).until(() -> root.acknowledgedCount() >= before + 20);
    servers.get("db-1").kill();
    await("failover")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !"db-1".equals(cluster.tick(op).record().primary()));
    cluster.driveUntilSteady(op, "db-1");
    long ready = System.nanoTime();
    finish(
        "switchover, then failover, root and app writers",
        Map.of(app, 0L, root, ROOT_IDS),
        fault,
        ready);
  }

  @Test
  void operatorKilledAtEveryStepBoundaryOfAFailover() throws Exception {
    for (String boundary : FailoverBoundaries.ALL) {
      operatorKilledAt(boundary);
    }
  }

  private void operatorKilledAt(String boundary) throws Exception {
    tearDownCluster();
    startCluster();
    AckedWriter w = writer();
    long fault = System.nanoTime();
    servers.get("db-0").kill();
    TopologyController dying =
        cluster.controller(
            b -> {
              if (b.equals(boundary)) {
                throw new OperatorDied(b);
              }
            });
    AtomicBoolean died = new AtomicBoolean();
    await("operator dies at " + boundary)
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              try {
                cluster.tick(dying);
              } catch (OperatorDied d) {
                died.set(true);
              }
              return died.get();
            });
    // A new operator starts from what the status holds (the record the sink stored).
    TopologyController fresh = cluster.controller(FailoverBoundaries.none());
    await("failover by the new operator")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !"db-0".equals(cluster.tick(fresh).record().primary()));
    assertThat(cluster.record().intent()).isNull();
    cluster.driveUntilSteady(fresh, "db-0");
    long ready = System.nanoTime();
    finish("operator killed at " + boundary, w, fault, ready);
  }
}
