package dev.bosun.mysql.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.JobPodRuntime;
import dev.bosun.common.testing.drill.DrillTable;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MariaDbServers;
import dev.bosun.mysql.testing.MySQLOperatorFixture;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Rebuild;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replica rebuilds on real MariaDB servers, with a writer recording every acknowledgement from
 * before the fault until the cluster is Ready again: an errant transaction, a lost data directory,
 * a requested rebuild whose operator dies while its copy Job runs, and a refusal without a healthy
 * source. The copy runs as a Job of the cluster's namespace: a routine a tenant wrote runs nothing,
 * and a copy a tenant broke says why.
 */
@ExtendWith(ControlPlaneExtension.class)
class ReplicaRebuildDrillIT {

  private static final DrillTable TABLE =
      new DrillTable(
          "mysql rebuild",
          List.of("drill", "acknowledged", "lost", "errant exported", "seconds to Ready"));
  private static final String AUTOMATIC =
      "flavour: MariaDB\nversion: '10.11'\nreplicas: 3\nreplication: {rebuild: Automatic}\n";
  private static final String MANUAL = "flavour: MariaDB\nversion: '10.11'\nreplicas: 3\n";

  @RegisterExtension static final MySQLOperatorFixture FX = new MySQLOperatorFixture("rebuild");

  @AfterAll
  static void writeTable() throws Exception {
    System.out.println(TABLE.text());
    TABLE.writeMarkdown(Path.of("target/drill-results/mysql-rebuild.md"));
  }

  @Test
  void anErrantReplicaIsRebuiltAutomaticallyAndItsTransactionIsExported() throws Exception {
    Address primary = readyCluster(AUTOMATIC);
    long started;
    List<Long> acked;
    try (AppClient.Writer writer = new AppClient.Writer(() -> primary, 1)) {
      awaitAcknowledged(writer, 20);
      started = System.nanoTime();
      assertThat(get().getStatus().getRebuild()).as("no rebuild before the fault").isNull();
      // A person "fixes" something on a replica: a write the primary never had.
      admin(FX.server("db-2").address(), "INSERT INTO app.items VALUES (990001, 'errant-row')");
      Rebuild rebuild = awaitRebuilt("db-2");
      assertThat(rebuild.getReason()).isEqualTo("ErrantTransactions");
      assertThat(rebuild.getSource()).isEqualTo("db-1");
      assertThat(rebuild.getSeconds()).isNotNull();
      awaitReady();
      awaitAcknowledged(writer, writer.acknowledgedCount() + 20);
      writer.close();
      acked = writer.acknowledged();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    Path artifact = artifact(get().getStatus().getRebuild().getErrantTransactions());
    String exported = Files.readString(artifact);
    assertThat(exported).contains("errant-row").contains("990001");
    assertThat(AppClient.ids(FX.server("db-2").address())).doesNotContain(990001L);
    assertThat(reasons()).contains("Rebuilding", "Rebuilt");
    // The application's account came along: the rebuilt member can serve it as a primary one day.
    assertThat(
            admin(FX.server("db-2").address(), "SELECT COUNT(*) FROM mysql.user WHERE user='app'"))
        .isEqualTo("1");
    List<Long> lost = lostOnEveryMember(acked);
    long exportedTransactions = exported.lines().filter(l -> l.contains("\tGTID ")).count();
    assertThat(exportedTransactions).isEqualTo(1);
    TABLE.row(
        "errant transaction on a replica",
        acked.size(),
        lost.size(),
        exportedTransactions,
        round(seconds));
    assertThat(lost).isEmpty();
  }

  @Test
  void aReplicaWhoseDataDirectoryWasRemovedIsRebuiltAutomatically() throws Exception {
    Address primary = readyCluster(AUTOMATIC);
    long started;
    List<Long> acked;
    try (AppClient.Writer writer = new AppClient.Writer(() -> primary, 1)) {
      awaitAcknowledged(writer, 20);
      // The primary's old binlogs are gone (expired): the member cannot replay the history.
      purgeOldBinlogs(primary);
      started = System.nanoTime();
      FX.fleet().loseData(FX.server("db-1"));
      FX.server("db-1").start();
      Rebuild rebuild = awaitRebuilt("db-1");
      assertThat(rebuild.getReason()).isEqualTo("ReplicationBroken");
      assertThat(rebuild.getErrantTransactions()).isNull();
      assertThat(rebuild.getMessage()).contains("replicating after GTID");
      awaitReady();
      awaitAcknowledged(writer, writer.acknowledgedCount() + 20);
      writer.close();
      acked = writer.acknowledged();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    List<Long> lost = lostOnEveryMember(acked);
    TABLE.row("data directory removed", acked.size(), lost.size(), 0, round(seconds));
    assertThat(lost).isEmpty();
  }

  @Test
  void aReplicaThatCannotFinishCrashRecoveryGetsANewVolumeKeepingTheOldAndIsCopied()
      throws Exception {
    // db-2's claim is bound to a volume the test made, so the kept volume can be looked at.
    FX.client().persistentVolumes().resource(volumeFor("data-db-2")).create();
    Address primary = readyCluster(AUTOMATIC);
    long started;
    List<Long> acked;
    String oldPod = pod("db-2").getMetadata().getUid();
    try (AppClient.Writer writer = new AppClient.Writer(() -> primary, 1)) {
      awaitAcknowledged(writer, 20);
      started = System.nanoTime();
      // db-2's server dies and cannot start again: InnoDB finds its files corrupt each time.
      FX.server("db-2").kill();
      ControlPlaneExtension.kubelet()
          .crashLoop(FX.namespace(), "db-2", MariaDbServers.CORRUPT_REDO_LOG_TAIL);
      await("replacing db-2's volume")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  get().getStatus().getRebuild() != null
                      && "ReplacingVolume".equals(get().getStatus().getRebuild().getPhase()));
      // The operator dies right after recording it; the next one goes on from the record.
      FX.operator().stop();
      FX.operator().start();
      await("a new Pod and claim for db-2")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                Pod p = pod("db-2");
                var claim =
                    FX.client()
                        .persistentVolumeClaims()
                        .inNamespace(FX.namespace())
                        .withName("data-db-2")
                        .get();
                return p != null
                    && !oldPod.equals(p.getMetadata().getUid())
                    && claim != null
                    && !"db-2-kept".equals(claim.getSpec().getVolumeName());
              });
      var kept = FX.client().persistentVolumes().withName("db-2-kept").get();
      assertThat(kept).as("the old volume outlives its claim").isNotNull();
      assertThat(kept.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
      assertThat(kept.getMetadata().getAnnotations())
          .containsEntry("mysql.bosun.dev/kept-volume-of", FX.namespace() + "/db/db-2");
      // The new Pod starts its server on an empty volume; the operator copies db-1 into it.
      FX.fleet().loseData(FX.server("db-2"));
      ControlPlaneExtension.kubelet().stopCrashLoop(FX.namespace(), "db-2");
      FX.server("db-2").start();
      Rebuild rebuild = awaitRebuilt("db-2");
      assertThat(rebuild.getReason()).isEqualTo("CrashRecoveryFailed");
      assertThat(rebuild.getSource()).isEqualTo("db-1");
      awaitReady();
      awaitAcknowledged(writer, writer.acknowledgedCount() + 20);
      writer.close();
      acked = writer.acknowledged();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    assertThat(events())
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("ReplacingVolume");
              assertThat(e.getMessage())
                  .contains(
                      "db-2: its server cannot finish crash recovery: at every start InnoDB finds"
                          + " its files corrupt",
                      "kept its volume db-2-kept",
                      "deleted its claim data-db-2");
            });
    List<Long> lost = lostOnEveryMember(acked);
    TABLE.row(
        "server cannot finish crash recovery, operator killed after recording",
        acked.size(),
        lost.size(),
        0,
        round(seconds));
    assertThat(lost).isEmpty();
  }

  /** A volume pre-bound to {@code claim} in the test's namespace (no provisioner runs here). */
  private static io.fabric8.kubernetes.api.model.PersistentVolume volumeFor(String claim) {
    return new io.fabric8.kubernetes.api.model.PersistentVolumeBuilder()
        .withNewMetadata()
        .withName("db-2-kept")
        .endMetadata()
        .withNewSpec()
        .addToCapacity("storage", new io.fabric8.kubernetes.api.model.Quantity("100Gi"))
        .withAccessModes("ReadWriteOnce")
        .withPersistentVolumeReclaimPolicy("Delete")
        .withStorageClassName("")
        .withNewHostPath()
        .withPath("/tmp/bosun-never-mounted")
        .endHostPath()
        .withNewClaimRef()
        .withNamespace(FX.namespace())
        .withName(claim)
        .endClaimRef()
        .endSpec()
        .build();
  }

  /** The copy Jobs' Pods this test's namespace ran. */
  private static List<JobPodRuntime.Run> copyRuns() {
    return MySQLOperatorFixture.jobPods().runs(FX.namespace()).stream()
        .filter(r -> r.pod().getMetadata().getLabels().containsKey(CopyJobs.REBUILD_OF))
        .toList();
  }

  private static Pod pod(String name) {
    return FX.client().pods().inNamespace(FX.namespace()).withName(name).get();
  }

  @Test
  void aRequestedRebuildWhoseOperatorDiesMidCopyResumesAndTheAnnotationIsTakenOff()
      throws Exception {
    Address primary = readyCluster(MANUAL);
    // Enough rows that the copy takes a moment: the operator is stopped while it runs.
    admin(
        primary,
        "INSERT INTO app.items SELECT seq + 1000000, REPEAT('x', 60) FROM app.seq_1_to_200000");
    annotate("db-0");
    await("refused for the primary")
        .atMost(Duration.ofSeconds(30))
        .until(() -> "True/RebuildRefused".equals(condition("Degraded")));
    assertThat(condition("Degraded", true)).contains("db-0 is the primary");
    long started;
    List<Long> acked;
    try (AppClient.Writer writer = new AppClient.Writer(() -> primary, 1)) {
      awaitAcknowledged(writer, 20);
      started = System.nanoTime();
      annotate("db-2");
      await("copying")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  get().getStatus().getRebuild() != null
                      && "Copying".equals(get().getStatus().getRebuild().getPhase()));
      // The operator stops while its copy Job runs: the Job runs on, and the next attempt must
      // stop it before it touches the member.
      await("the copy Job runs")
          .atMost(Duration.ofSeconds(60))
          .until(() -> copyRuns().stream().anyMatch(r -> r.started() != null));
      FX.operator().stop();
      FX.operator().start();
      Rebuild rebuild = awaitRebuilt("db-2");
      assertThat(rebuild.getReason()).isEqualTo("Requested");
      awaitReady();
      awaitAcknowledged(writer, writer.acknowledgedCount() + 20);
      writer.close();
      acked = writer.acknowledged();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    assertThat(get().getMetadata().getAnnotations()).doesNotContainKey("mysql.bosun.dev/rebuild");
    assertThat(get().getStatus().getRebuild().getErrantTransactions()).isNull();
    assertThat(events())
        .anyMatch(
            e ->
                e.getMessage() != null
                    && e.getMessage().contains("resumed: its copy was not running"));
    assertThat(AppClient.ids(FX.server("db-2").address())).hasSizeGreaterThan(200_000);
    List<JobPodRuntime.Run> copies =
        copyRuns().stream()
            .sorted(java.util.Comparator.comparing(JobPodRuntime.Run::started))
            .toList();
    assertThat(copies).as("the interrupted copy and the resumed one").hasSize(2);
    assertThat(copies.get(0).ended())
        .as("the first copy was stopped before the second started")
        .isNotNull()
        .isBefore(copies.get(1).started());
    List<Long> lost = lostOnEveryMember(acked);
    TABLE.row(
        "requested rebuild, operator killed mid-copy",
        acked.size(),
        lost.size(),
        0,
        round(seconds));
    assertThat(lost).isEmpty();
  }

  @Test
  void theCopyRunsAsAJobOfTheClustersNamespaceAndARoutineWithAShellLineRunsNothing()
      throws Exception {
    Address primary = readyCluster(MANUAL);
    Path owned = Files.createTempDirectory("bosun-rebuild-hostile").resolve("owned");
    // What a tenant can write into its own database: a routine whose text holds a line that a
    // client reading it outside a string would run as a shell command.
    admin(
        primary, "CREATE PROCEDURE app.hostile() BEGIN SELECT '\n\\! touch " + owned + "\n'; END");
    AppClient.awaitApplied(
        primary, List.of(FX.server("db-1").address(), FX.server("db-2").address()));
    annotate("db-2");
    Rebuild rebuild = awaitRebuilt("db-2");
    assertThat(rebuild.getReason()).isEqualTo("Requested");
    assertThat(owned).as("nothing ran the routine's shell line").doesNotExist();
    assertThat(
            admin(
                FX.server("db-2").address(),
                "SELECT COUNT(*) FROM information_schema.routines WHERE routine_name='hostile'"))
        .as("the routine was copied as data")
        .isEqualTo("1");
    List<JobPodRuntime.Run> copies = copyRuns();
    assertThat(copies).hasSize(1);
    Pod pod = copies.get(0).pod();
    assertThat(pod.getMetadata().getNamespace()).isEqualTo(FX.namespace());
    assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSpec().getVolumes())
        .as("no ServiceAccount token is projected into the copy")
        .noneMatch(v -> v.getProjected() != null);
    assertThat(
            pod.getSpec().getContainers().get(0).getSecurityContext().getCapabilities().getDrop())
        .containsExactly("ALL");
    await("the copy's Job and Secret are gone")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                FX.client()
                            .batch()
                            .v1()
                            .jobs()
                            .inNamespace(FX.namespace())
                            .withName(CopyJobs.name(get()))
                            .get()
                        == null
                    && FX.client()
                            .secrets()
                            .inNamespace(FX.namespace())
                            .withName(CopyJobs.secretName(get()))
                            .get()
                        == null);
    awaitReady();
  }

  @Test
  void aCopyJobWhoseAccountATenantChangedFailsAndSaysWhy() throws Exception {
    Address primary = readyCluster(MANUAL);
    admin(primary, "INSERT INTO app.items VALUES (770001, 'kept')");
    AppClient.awaitApplied(
        primary, List.of(FX.server("db-1").address(), FX.server("db-2").address()));
    MySQLOperatorFixture.jobPods().hold();
    try {
      annotate("db-2");
      await("the copy Job")
          .atMost(Duration.ofSeconds(60))
          .until(() -> MySQLOperatorFixture.jobPods().ran(FX.namespace()).size() == 1);
      // A tenant who can edit Secrets in its namespace gives the copy a wrong password.
      FX.client()
          .secrets()
          .inNamespace(FX.namespace())
          .withName(CopyJobs.secretName(get()))
          .edit(
              sec -> {
                sec.getData()
                    .put(
                        CopyJobs.PASSWORD_KEY,
                        java.util.Base64.getEncoder()
                            .encodeToString("not-the-password".getBytes()));
                return sec;
              });
    } finally {
      MySQLOperatorFixture.jobPods().release();
    }
    await("the rebuild failed")
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                get().getStatus().getRebuild() != null
                    && "Failed".equals(get().getStatus().getRebuild().getPhase()));
    // The round stores the failed rebuild before it emits the Event (a lost write must not read
    // as an interrupted copy), so the Event may follow the status by a moment.
    await("the RebuildFailed Event")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(events())
                    .filteredOn(e -> "RebuildFailed".equals(e.getReason()))
                    .singleElement()
                    .satisfies(
                        e ->
                            assertThat(e.getMessage())
                                .contains("the copy Job " + CopyJobs.name(get()) + " failed: ")
                                .contains("SQL error 1045")
                                .contains("was refused")));
    assertThat(AppClient.ids(FX.server("db-2").address()))
        .as("a copy that could not log in wiped nothing")
        .contains(770001L);
  }

  @Test
  void withoutAHealthySourceTheRebuildIsRefusedAndNothingIsWiped() throws Exception {
    readyCluster(AUTOMATIC);
    FX.server("db-1").kill();
    admin(FX.server("db-2").address(), "INSERT INTO app.items VALUES (990002, 'errant-row')");
    await("refused")
        .atMost(Duration.ofSeconds(60))
        .until(() -> "True/RebuildRefused".equals(condition("Degraded")));
    assertThat(condition("Degraded", true)).contains("no healthy replica to copy db-2 from");
    // Refused means untouched, for several rounds in a row.
    await("nothing wiped while refused")
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                AppClient.ids(FX.server("db-2").address()).contains(990002L)
                    && get().getStatus().getRebuild() == null);
    // With its source back, the refused rebuild goes ahead.
    FX.server("db-1").start();
    assertThat(awaitRebuilt("db-2").getSource()).isEqualTo("db-1");
    awaitReady();
  }

  private Address readyCluster(String spec) throws Exception {
    FX.serversFor("db", 3);
    Crds.createRaw(
        FX.client(), "mysql.bosun.dev/v1alpha1", "MySQLCluster", FX.namespace(), "db", spec);
    awaitReady();
    Address primary = FX.server("db-0").address();
    AppClient.createSchema(primary);
    AppClient.awaitApplied(
        primary, List.of(FX.server("db-1").address(), FX.server("db-2").address()));
    return primary;
  }

  private void awaitReady() {
    try {
      await("Ready")
          .atMost(Duration.ofSeconds(120))
          .until(() -> "True/Replicating".equals(condition("Ready")));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the cluster did not become Ready; it shows " + described(), e);
    }
  }

  private Rebuild awaitRebuilt(String member) {
    try {
      await(member + " rebuilt")
          .atMost(Duration.ofSeconds(180))
          .until(
              () -> {
                Rebuild r = get().getStatus() == null ? null : get().getStatus().getRebuild();
                return r != null && member.equals(r.getMember()) && "Rebuilt".equals(r.getPhase());
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(member + " was not rebuilt; the cluster shows " + described(), e);
    }
    return get().getStatus().getRebuild();
  }

  /** What a person would read to see why a drill is stuck: status and the operator's Events. */
  private String described() {
    MySQLCluster c = get();
    String conditions =
        c == null || c.getStatus() == null || c.getStatus().getConditions() == null
            ? "no status"
            : c.getStatus().getConditions().stream()
                .map(
                    k ->
                        k.getType()
                            + "="
                            + k.getStatus()
                            + "/"
                            + k.getReason()
                            + ": "
                            + k.getMessage())
                .toList()
                .toString();
    Rebuild rebuild = c == null || c.getStatus() == null ? null : c.getStatus().getRebuild();
    String rebuildText =
        rebuild == null
            ? "no rebuild recorded"
            : "rebuild of "
                + rebuild.getMember()
                + " "
                + rebuild.getPhase()
                + ": "
                + rebuild.getMessage();
    StringBuilder logs = new StringBuilder("; " + rebuildText);
    for (MariaDbServers.Server s : FX.servers()) {
      logs.append("\n").append(s.name()).append(" error log:\n").append(s.errorLogTail(8));
    }
    return (c == null ? "no cluster" : conditions)
        + "; events "
        + events().stream().map(e -> e.getReason() + ": " + e.getMessage()).toList()
        + logs;
  }

  private static void awaitAcknowledged(AppClient.Writer writer, int count) {
    await("acknowledged writes")
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.acknowledgedCount() >= count);
  }

  /** Acknowledged rows missing on any member once every member caught up. */
  private List<Long> lostOnEveryMember(List<Long> acked) {
    List<Long> lost = new ArrayList<>();
    await("every member holds every acknowledged row")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              lost.clear();
              for (MariaDbServers.Server s : FX.servers()) {
                java.util.Set<Long> ids = new java.util.HashSet<>(AppClient.ids(s.address()));
                for (Long id : acked) {
                  if (!ids.contains(id) && !lost.contains(id)) {
                    lost.add(id);
                  }
                }
              }
              return lost.isEmpty();
            });
    return lost;
  }

  /** As {@code kubectl annotate} does: a merge patch, no resourceVersion to race status writes. */
  private void annotate(String member) {
    FX.client()
        .resources(MySQLCluster.class)
        .inNamespace(FX.namespace())
        .withName("db")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"mysql.bosun.dev/rebuild\":\"" + member + "\"}}}");
  }

  private Path artifact(String location) throws Exception {
    assertThat(location).as("the errant transactions' location in status").isNotNull();
    try (Stream<Path> files = Files.walk(FX.mysql().backupRoot)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> location.endsWith(FX.mysql().backupRoot.relativize(p).toString()))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no file for " + location));
    }
  }

  private MySQLCluster get() {
    return FX.client()
        .resources(MySQLCluster.class)
        .inNamespace(FX.namespace())
        .withName("db")
        .get();
  }

  private String condition(String type) {
    return condition(type, false);
  }

  private String condition(String type, boolean message) {
    MySQLCluster c = get();
    if (c == null || c.getStatus() == null) {
      return null;
    }
    return Conditions.find(c.getStatus().getConditions(), type)
        .map(x -> message ? x.getMessage() : x.getStatus() + "/" + x.getReason())
        .orElse(null);
  }

  private List<Event> events() {
    return FX.client().v1().events().inNamespace(FX.namespace()).list().getItems();
  }

  private List<String> reasons() {
    return events().stream().map(Event::getReason).toList();
  }

  private static String admin(Address a, String sql) throws Exception {
    return AppClient.adminQuery(a, sql);
  }

  private static String admin(Address a, String sql, String column) throws Exception {
    try (Connection c = AppClient.admin(a);
        Statement s = c.createStatement();
        var rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(column) : null;
    }
  }

  /**
   * Leaves the primary with its current binlog only. One PURGE is not enough: MariaDB keeps, with a
   * warning only, a file a replica's dump thread still reads or whose binlog checkpoint is not
   * written yet, and then the member replays the whole history instead of needing a rebuild.
   */
  private static void purgeOldBinlogs(Address primary) throws Exception {
    admin(primary, "FLUSH BINARY LOGS");
    String current = admin(primary, "SHOW MASTER STATUS", "File");
    List<String> kept = new ArrayList<>();
    List<String> oldFiles = new ArrayList<>();
    try {
      await("binlogs before " + current + " purged")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                kept.clear();
                oldFiles.clear();
                try (Connection c = AppClient.admin(primary);
                    Statement s = c.createStatement()) {
                  s.execute("PURGE BINARY LOGS TO '" + current + "'");
                  try (var rs = s.executeQuery("SHOW WARNINGS")) {
                    while (rs.next()) {
                      kept.add(rs.getString("Message"));
                    }
                  }
                  try (var rs = s.executeQuery("SHOW BINARY LOGS")) {
                    while (rs.next()) {
                      if (!current.equals(rs.getString("Log_name"))) {
                        oldFiles.add(rs.getString("Log_name"));
                      }
                    }
                  }
                }
                return oldFiles.isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the primary kept " + oldFiles + ": " + kept, e);
    }
  }

  private static double round(double seconds) {
    return Math.round(seconds * 10) / 10.0;
  }
}
