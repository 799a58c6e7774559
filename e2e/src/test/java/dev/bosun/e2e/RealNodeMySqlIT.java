package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.PodExec;
import dev.bosun.common.testing.RealNodeExtension;
import dev.bosun.platform.AckedWriter;
import dev.bosun.platform.RealNodeMySql;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.RealNodeSamples;
import dev.bosun.platform.Resources;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MySQLClusters (MariaDB flavour) as real containers from the MySQL operator's own Pod specs (its
 * start and init scripts, its ConfigMap, its generated Secrets), run by the operator's chart Pods.
 * A writer in another Pod writes through the primary Service's name while the primary's container
 * hangs (frozen, as a hung machine), and later while the next primary's container is killed each
 * time the kubelet restarts it (a crash loop; one kill alone is restarted in place within a second,
 * which is no failover): each time the operator fails over, the writer reconnects through the same
 * name and every acknowledged row survives; the old primary comes back read-only. A MySQLBackup on
 * the operator's backup volume is restored into a new cluster.
 */
@ExtendWith(RealNodeExtension.class)
class RealNodeMySqlIT {

  private static final String NS = "db-team";
  private static RealNodePlatform platform;
  private static KubernetesClient admin;
  private static RealNodeMySql db;
  private static AckedWriter writer;

  @BeforeAll
  static void install() {
    platform = RealNodePlatform.shared();
    admin = platform.admin();
    platform
        .cluster()
        .node()
        .tagImage(platform.cluster().node().workloadsImage(), RealNodeSamples.MARIADB_IMAGE);
    RealNodePods.namespace(admin, NS, Map.of());
    db = new RealNodeMySql(platform, NS, "db", "writer");
    writer = db.writer();
  }

  @Test
  void hungThenCrashLoopingPrimaryFailOverAndEveryAcknowledgedRowSurvives() {
    // rebuild: Automatic: a primary frozen in the middle of a commit (written to its binlog, not
    // yet acknowledged by a replica) commits it at recovery when it is killed, and comes back
    // holding a transaction nobody else has (ReplicationIT pins that MariaDB fact). The operator
    // then exports it and rebuilds the member; with Manual it would wait for a person.
    db.create(
        3,
        "512Mi",
        "  failover: {primaryUnavailableSeconds: 10}\n  replication: {rebuild: Automatic}\n");
    db.awaitReady(3, Duration.ofMinutes(6));
    String primary = db.primary();

    db.startClient();
    db.sql(AckedWriter.SCHEMA);

    CompletableFuture<PodExec.Result> writes = writer(0);
    await("some acknowledged rows before the kill")
        .atMost(Duration.ofMinutes(1))
        .until(() -> db.count() > 20);

    Instant hung = Instant.now();
    String oldContainer = db.containerId(primary);
    platform.cluster().node().pauseContainer(oldContainer);
    try {
      await("a new primary reached through db-primary")
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> !primary.equals(db.primary()) && db.count() > 0);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      db.explain();
      throw e;
    }
    long seconds = Duration.between(hung, Instant.now()).toSeconds();
    // The hung old primary is killed (a frozen task dies at once); the kubelet restarts its
    // container on its data, and it must come back as a read-only member.
    platform.cluster().node().killContainer(oldContainer);
    // Let the writer go on through the same Service name after the failover.
    long after = db.count();
    await("the writer to write through the new primary")
        .atMost(Duration.ofMinutes(1))
        .until(() -> db.count() > after + 20);
    writer.stop();
    String out = writes.join().stdout();
    // The old primary back as a read-only member (rebuilt first if it came back errant).
    db.awaitReady(3, Duration.ofMinutes(6));
    System.err.println("[e2e] after the hung primary: " + db.rebuildSummary());
    assertThat(db.sql(primary + ".db-headless", "SELECT @@read_only").trim())
        .as("the old primary is read-only")
        .isEqualTo("1");
    Set<Integer> acked = RealNodePods.numbered(out, "ack");
    Set<Integer> stored = db.storedIds();
    Set<Integer> lost = new HashSet<>(acked);
    lost.removeAll(stored);
    System.err.printf(
        "[e2e] MariaDB primary %s hung: new primary %s after %d s; %d rows acknowledged,"
            + " %d failed attempts, %d lost%n",
        primary,
        db.primary(),
        seconds,
        acked.size(),
        RealNodePods.numbered(out, "fail").size(),
        lost.size());
    assertThat(lost).as("acknowledged rows missing on the new primary").isEmpty();

    // Now the new primary's container is killed every time the kubelet restarts it (a crash
    // loop): the kubelet's back-off keeps it down, the operator fails over again.
    String second = db.primary();
    writer.allow();
    CompletableFuture<PodExec.Result> more = writer(100_000);
    long before = db.count();
    await("acknowledged rows before the crash loop")
        .atMost(Duration.ofMinutes(1))
        .until(() -> db.count() > before + 20);
    Instant crashing = Instant.now();
    int kills = crashLoopUntilFailover(second, Duration.ofMinutes(4));
    long crashSeconds = Duration.between(crashing, Instant.now()).toSeconds();
    long afterCrash = db.count();
    await("the writer to write through the third primary")
        .atMost(Duration.ofMinutes(1))
        .until(() -> db.count() > afterCrash + 20);
    writer.stop();
    String moreOut = more.join().stdout();
    db.awaitReady(3, Duration.ofMinutes(5));
    Set<Integer> ackedMore = RealNodePods.numbered(moreOut, "ack");
    Set<Integer> storedMore = db.storedIds();
    Set<Integer> lostMore = new HashSet<>(ackedMore);
    lostMore.removeAll(storedMore);
    System.err.printf(
        "[e2e] MariaDB primary %s crash-looping (%d kills): new primary %s after %d s; %d rows"
            + " acknowledged, %d failed attempts, %d lost%n",
        second,
        kills,
        db.primary(),
        crashSeconds,
        ackedMore.size(),
        RealNodePods.numbered(moreOut, "fail").size(),
        lostMore.size());
    assertThat(lostMore).as("acknowledged rows missing after the crash loop").isEmpty();
    assertThat(storedMore).as("rows of the first writer kept").containsAll(acked);

    // A requested rebuild copies a replica from another one, user accounts included
    // (mariadb-dump --system=users), on members the image's install script made.
    String rebuilt =
        java.util.stream.Stream.of("db-0", "db-1", "db-2")
            .filter(p -> !p.equals(db.primary()))
            .findFirst()
            .orElseThrow();
    db.requestRebuild(rebuilt);
    try {
      await(rebuilt + " rebuilt on request")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(2))
          .until(() -> db.rebuildSummary().contains("Requested, Rebuilt"));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      db.explain();
      throw e;
    }
    System.err.println("[e2e] " + db.rebuildSummary());
    db.awaitReady(3, Duration.ofMinutes(3));
    assertThat(db.sql(rebuilt + ".db-headless", "SELECT COUNT(*) FROM " + AckedWriter.TABLE).trim())
        .as("rows on the rebuilt replica")
        .isEqualTo(String.valueOf(db.count()));

    // The other replica's disk goes bad: its redo log header is overwritten and its server
    // killed. Every restart fails in crash recovery; the operator reads that from the Pod's
    // termination message, keeps the volume (Retain), gives the member a new one and copies
    // a healthy replica into it.
    String corrupt =
        java.util.stream.Stream.of("db-0", "db-1", "db-2")
            .filter(p -> !p.equals(db.primary()) && !p.equals(rebuilt))
            .findFirst()
            .orElseThrow();
    String oldVolume = db.volume(corrupt).getMetadata().getName();
    try {
      db.corruptRedoLog(corrupt);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Instant corrupted = Instant.now();
    platform.cluster().node().killContainer(db.containerId(corrupt));
    try {
      await(corrupt + " given a new volume and rebuilt")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(2))
          .until(() -> db.rebuildSummary().contains("CrashRecoveryFailed, Rebuilt"));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      db.explain();
      throw e;
    }
    long replaceSeconds = Duration.between(corrupted, Instant.now()).toSeconds();
    db.awaitReady(3, Duration.ofMinutes(3));
    var kept = admin.persistentVolumes().withName(oldVolume).get();
    assertThat(kept).as("the corrupt member's old volume is kept").isNotNull();
    assertThat(kept.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
    assertThat(db.volume(corrupt).getMetadata().getName()).isNotEqualTo(oldVolume);
    assertThat(db.sql(corrupt + ".db-headless", "SELECT COUNT(*) FROM " + AckedWriter.TABLE).trim())
        .as("rows on the member rebuilt on a new volume")
        .isEqualTo(String.valueOf(db.count()));
    System.err.printf(
        "[e2e] %s could not finish crash recovery: new volume and rebuilt after %d s (%s)%n",
        corrupt, replaceSeconds, db.rebuildSummary());
  }

  /**
   * Kills {@code pod}'s MariaDB container whenever it runs, until the operator names another
   * primary (bounded by {@code limit}); returns the number of kills.
   */
  private int crashLoopUntilFailover(String pod, Duration limit) {
    AtomicInteger kills = new AtomicInteger();
    AtomicReference<String> lastKilled = new AtomicReference<>("");
    try {
      await(pod + " no longer primary while its container is killed whenever it runs")
          .atMost(limit)
          .pollInterval(Duration.ofMillis(300))
          .until(
              () -> {
                killIfRunning(pod, lastKilled, kills);
                return !pod.equals(db.primary());
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      System.err.println("[e2e] " + kills + " kills");
      db.explain();
      throw e;
    }
    return kills.get();
  }

  /** Kills {@code pod}'s container if a new one (not killed yet) is running. */
  private void killIfRunning(String pod, AtomicReference<String> lastKilled, AtomicInteger kills) {
    Pod p = admin.pods().inNamespace(NS).withName(pod).get();
    if (p == null || p.getStatus().getContainerStatuses().isEmpty()) {
      return;
    }
    var state = p.getStatus().getContainerStatuses().get(0);
    if (state.getState().getRunning() != null && !state.getContainerID().equals(lastKilled.get())) {
      lastKilled.set(state.getContainerID());
      platform
          .cluster()
          .node()
          .killContainer(state.getContainerID().replaceFirst("^containerd://", ""));
      kills.incrementAndGet();
    }
  }

  /**
   * A writer in the writer Pod inserting ids from {@code first} through the primary Service;
   * bounded: 3000 inserts or 4 minutes, stops early when /tmp/stop appears.
   */
  private CompletableFuture<PodExec.Result> writer(int first) {
    return writer.start(first, 3000, Duration.ofMinutes(4));
  }

  @Test
  void aBackupOnTheOperatorsVolumeIsRestoredIntoANewCluster() {
    // With the metrics sidecar on: Debian's mysqld_exporter from the node's workloads image, as
    // the user the operator's init script creates in a fresh data directory.
    RealNodeMySql shop =
        new RealNodeMySql(platform, NS, "shop", "shop-client")
            .create(
                1,
                "256Mi",
                "  metrics: {enabled: true, image: %s, command: [/usr/bin/prometheus-mysqld-exporter]}\n"
                    .formatted(RealNodeSamples.MARIADB_IMAGE));
    shop.awaitReady(1, Duration.ofMinutes(6));
    String password = shop.rootPassword();
    shop.startClient();
    assertThat(scrapeExporter("shop-0"))
        .as("the exporter sidecar of shop-0, scraped from another Pod")
        .contains("mysql_up 1")
        .contains("mysql_global_status_uptime");
    // 200 rows in one statement: a table a person would recognise after the restore.
    assertThat(
            shopSql(
                "shop",
                password,
                "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, item"
                    + " VARCHAR(32)); USE shop; INSERT INTO orders SELECT seq, CONCAT(\"item-\","
                    + " seq) FROM seq_1_to_200"))
        .as("output of creating the source data")
        .isEmpty();
    assertThat(shopSql("shop", password, "SELECT COUNT(*) FROM shop.orders"))
        .as("rows written to the source cluster")
        .isEqualTo("200");
    // A dump to the operator's backup volume.
    Resources.apply(
        admin,
        NS,
        """
        apiVersion: mysql.bosun.dev/v1alpha1
        kind: MySQLBackup
        metadata: {name: shop-nightly}
        spec: {clusterName: shop, store: {volume: {}}}
        """);
    Resources.awaitReady(
        admin,
        "mysql.bosun.dev/v1alpha1",
        "MySQLBackup",
        NS,
        "shop-nightly",
        Duration.ofMinutes(3));
    @SuppressWarnings("unchecked")
    Map<String, Object> backupStatus =
        (Map<String, Object>) backup("shop-nightly").getAdditionalProperties().get("status");
    @SuppressWarnings("unchecked")
    Map<String, Object> lastBackup = (Map<String, Object>) backupStatus.get("lastBackup");
    System.err.println("[e2e] MySQLBackup shop-nightly: " + lastBackup.get("location"));

    RealNodeMySql copy =
        new RealNodeMySql(platform, NS, "shop-copy", "shop-client")
            .create(2, "256Mi", "  bootstrap: {fromBackup: {backupName: shop-nightly}}\n");
    copy.awaitReady(2, Duration.ofMinutes(6));
    String copied =
        shopSql("shop-copy", copy.rootPassword(), "SELECT COUNT(*), MAX(item) FROM shop.orders");
    assertThat(copied).as("rows in the restored cluster").isEqualTo("200\titem-99");
    assertThat(String.valueOf(copy.status().get("restoredFrom")))
        .as("the restored cluster names its source")
        .contains("shop");
  }

  /** The exporter sidecar's metrics of {@code pod}, fetched from the shop-client Pod. */
  private String scrapeExporter(String pod) {
    String ip = admin.pods().inNamespace(NS).withName(pod).get().getStatus().getPodIP();
    // Debian busybox's wget -T crashes: timeout bounds the fetch instead.
    return PodExec.sh(
            admin,
            NS,
            "shop-client",
            Duration.ofSeconds(20),
            "timeout 10 wget -q -O- http://"
                + ip
                + ":9104/metrics | grep -E '^mysql_(up|global_status_uptime) '")
        .stdout();
  }

  /** Runs SQL on {@code cluster}'s primary from the shop-client Pod; the trimmed output. */
  private String shopSql(String cluster, String password, String statement) {
    return sqlOn(cluster + "-primary", password, statement);
  }

  /** Runs SQL on {@code host} from the shop-client Pod; the trimmed output. */
  private String sqlOn(String host, String password, String statement) {
    PodExec.Result r =
        PodExec.sh(
            admin,
            NS,
            "shop-client",
            Duration.ofSeconds(30),
            "mariadb -h "
                + host
                + " -uroot -p'"
                + password
                + "' --connect-timeout=3 -N -e '"
                + statement
                + "'");
    return r.stdout().trim() + r.stderr().trim();
  }

  private GenericKubernetesResource backup(String name) {
    return Resources.get(admin, RealNodeMySql.API, "MySQLBackup", NS, name);
  }
}
