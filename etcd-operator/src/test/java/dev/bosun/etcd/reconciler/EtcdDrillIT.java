package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.backup.BackupStoreSpec;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.S3TestServer;
import dev.bosun.common.testing.drill.AckedWriter;
import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.DrillTable;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.etcd.membership.ClusterRef;
import dev.bosun.etcd.testing.ClusterObjects;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.testing.LabAddressing;
import dev.bosun.etcd.testing.MemberNamespace;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupSpec;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.DisasterRecovery;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Partition drills: every member runs in its own network namespace (a test host of a {@link
 * NetworkLab}, members' peer and client URLs on the hosts' addresses), the operator's etcd traffic
 * goes through the client identity "operator" and the writer's through "writer", so either can be
 * cut from any member. Each drill records acknowledged and lost writes, the destructive actions the
 * operator took and the seconds until the cluster was Ready again, into target/drill-results.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EtcdDrillIT {

  static final String VERSION = "3.4.23";
  static final Duration CONVERGE = Duration.ofSeconds(150);
  static final int AFTER_SECONDS = 30;
  static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  /**
   * Event reasons of destructive actions nobody asked for: replacing members or their data, rolling
   * the cluster back to a snapshot. (Removals a scale-down asked for are not counted.)
   */
  static final Set<String> DESTRUCTIVE =
      Set.of(
          "DisasterRecovery",
          "OldMembersStopped",
          "RemovingUnexpectedMember",
          "ReplacingLostMember",
          "LearnerNeverStarted");

  static NetworkLab lab;
  static LabAddressing addressing;
  static ClientIdentity operatorIdentity;
  static ClientIdentity writerIdentity;
  static RunningOperator operator;
  static S3TestServer s3;
  static final DrillTable TABLE =
      new DrillTable(
          "etcd",
          List.of(
              "drill", "acknowledged", "lost", "destructive actions taken", "seconds to Ready"));

  MemberNamespace space;
  String ns;
  ProcessKubelet kubelet;

  @BeforeAll
  static void start() throws Exception {
    lab = NetworkLab.create("etcd-drill");
    addressing = new LabAddressing(lab);
    operatorIdentity = lab.client("operator");
    writerIdentity = lab.client("writer");
    operator =
        EtcdUnderTest.operator(addressing, url -> addressing.via(operatorIdentity, url)).start();
    s3 = S3TestServer.start(Files.createTempDirectory("s3"), "etcd-drills");
  }

  @AfterAll
  static void stop() {
    try {
      TABLE.print();
      TABLE.writeMarkdown(Path.of("target/drill-results/etcd.md"));
    } finally {
      if (operator != null) {
        operator.close();
      }
      if (s3 != null) {
        s3.close();
      }
      if (lab != null) {
        lab.close();
      }
    }
  }

  @BeforeEach
  void namespace() {
    space =
        MemberNamespace.create(
            operator.client,
            "etcddrill",
            k -> k.wrapping((member, command) -> addressing.host(member).wrap(command)));
    ns = space.name;
    kubelet = space.kubelet;
    Crds.secret(
        operator.client,
        ns,
        "s3-credentials",
        Map.of(
            "accessKeyId", s3.credentials().accessKeyId(),
            "secretAccessKey", s3.credentials().secretAccessKey()));
  }

  @AfterEach
  void cleanup() {
    lab.healAll();
    space.close();
  }

  // --- drills ---------------------------------------------------------------------------------

  @Test
  @Order(1)
  void operatorCutOffFromTwoOfThreeHealthyMembersTouchesNothing() throws Exception {
    String name = "da";
    partitionDrill(
        name,
        "operator cut off from 2 of 3 healthy members for " + (AFTER_SECONDS + 10) + " s",
        () -> {
          lab.cut(operatorIdentity, addressing.host(name + "-1"));
          lab.cut(operatorIdentity, addressing.host(name + "-2"));
        },
        (writer, pods) -> {
          EtcdCluster unseen = awaitReason(name, "QuorumLost", "MembersUnreachable");
          assertThat(condition(unseen, "QuorumLost").getStatus()).isEqualTo("Unknown");
          assertThat(condition(unseen, "QuorumLost").getMessage())
              .contains("cannot reach " + name + "-1, " + name + "-2");
          long ackedBefore = writer.acknowledgedCount();
          // Longer than afterSeconds: no recovery, no Pod touched, the cluster keeps serving.
          awaitNothingTouched(name, pods, "QuorumNotConfirmedLost", AFTER_SECONDS + 10);
          assertThat(writer.acknowledgedCount())
              .as("the cluster kept serving")
              .isGreaterThan(ackedBefore);
        });
  }

  @Test
  @Order(2)
  void membersThatCannotReachEachOtherAreReportedAndNeverRestored() throws Exception {
    String name = "df";
    partitionDrill(
        name,
        "every member running but cut off from the others for " + (AFTER_SECONDS + 5) + " s",
        () -> {
          // Peer traffic cut between every pair (a peer certificate or NetworkPolicy fault); the
          // operator and the writer still reach every member, each running on its own data.
          for (int i = 0; i < 3; i++) {
            for (int j = i + 1; j < 3; j++) {
              lab.cut(addressing.host(name + "-" + i), addressing.host(name + "-" + j));
            }
          }
        },
        (writer, pods) -> {
          EtcdCluster reported = awaitReason(name, "Degraded", "MembersCannotReachEachOther");
          assertThat(condition(reported, "Degraded").getMessage())
              .contains("reporting no leader: " + name + "-0, " + name + "-1, " + name + "-2")
              .contains("peer TLS", "NetworkPolicy", "clocks", "Nothing is removed");
          assertThat(reason(reported, "QuorumLost")).isEqualTo("NoLeader");
          // Longer than afterSeconds, with a fresh snapshot at hand: no clock, no restore.
          awaitNothingTouched(name, pods, "DataIntact", AFTER_SECONDS + 5);
        });
  }

  EtcdCluster awaitReason(String name, String type, String reason) {
    return EtcdClusters.awaitReason(operator.client, ns, name, type, reason);
  }

  /** What a partition drill checks while its fault lasts. */
  @FunctionalInterface
  interface DuringFault {
    void check(AckedWriter writer, List<String> pods) throws Exception;
  }

  /**
   * A three-member cluster armed for disaster recovery with a fresh snapshot (everything a recovery
   * would need), under a writer: {@code cut} makes the fault, {@code during} checks what happens
   * meanwhile; then every cut is healed, and the drill is recorded once Ready, with the same Pods
   * and every acknowledged write read back.
   */
  void partitionDrill(String name, String drill, Runnable cut, DuringFault during)
      throws Exception {
    createWithRecovery(name, 3);
    backupNow(name);
    List<String> pods = podUids();
    try (Client etcd = writerClient(name, 3);
        AckedWriter writer = writer(etcd, name)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> writer.acknowledgedCount() > 20);
      Instant fault = Instant.now();
      cut.run();
      during.check(writer, pods);
      lab.healAll();
      EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(3));
      double seconds = secondsSince(fault);
      writer.stop();
      assertThat(podUids()).isEqualTo(pods);
      record(drill, writer, etcd, name, seconds);
    }
  }

  /**
   * For {@code seconds}: the same Pods, no volume retained, no recovery recorded, no recovery
   * clock, and the DisasterRecovery condition at {@code reason}.
   */
  void awaitNothingTouched(String name, List<String> pods, String reason, int seconds) {
    await("nothing touched for " + seconds + " s")
        .during(Duration.ofSeconds(seconds))
        .atMost(Duration.ofSeconds(seconds + 20))
        .until(
            () -> {
              EtcdCluster c = EtcdClusters.get(operator.client, ns, name);
              return podUids().equals(pods)
                  && retainedVolumes().isEmpty()
                  && c.getStatus().getRecoveringFrom() == null
                  && c.getStatus().getQuorumLostSince() == null
                  && reason.equals(reason(c, "DisasterRecovery"));
            });
  }

  @Test
  @Order(3)
  void aRealQuorumLossIsRecoveredOnlyAfterAfterSecondsFromASnapshotInsideTheBound()
      throws Exception {
    String name = "db";
    createWithRecovery(name, 3);
    SortedSet<Long> acked;
    try (Client etcd = writerClient(name, 3);
        AckedWriter writer = writer(etcd, name)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> writer.acknowledgedCount() > 50);
      // Writes acknowledged after a snapshot exist only on the old volumes (kept, retained):
      // the writer stops before the snapshot, so every acknowledged write is in it.
      writer.stop();
      acked = writer.acknowledged();
    }
    EtcdBackup backup = backupNow(name);

    Instant fault = Instant.now();
    kubelet.killContainer(name + "-1");
    kubelet.killContainer(name + "-2");
    EtcdCluster waiting =
        EtcdClusters.await(
            operator.client,
            ns,
            name,
            Duration.ofSeconds(60),
            "waiting for afterSeconds",
            c -> "WaitingForAfterSeconds".equals(reason(c, "DisasterRecovery")));
    Instant lostSince = waiting.getStatus().getQuorumLostSince().toInstant();
    EtcdCluster rebuilt =
        EtcdClusters.await(
            operator.client,
            ns,
            name,
            Duration.ofSeconds(240),
            "rebuilt from the snapshot",
            c ->
                EtcdClusters.readyWith(3).test(c)
                    && c.getStatus().getRestoredFrom() != null
                    && !c.getStatus().getMembers().get(0).getName().equals(name + "-0"));
    double seconds = secondsSince(fault);
    assertThat(rebuilt.getStatus().getRestoredFrom())
        .endsWith(backup.getStatus().getLastBackup().key());
    Event stopped =
        events(name).stream()
            .filter(e -> "OldMembersStopped".equals(e.getReason()))
            .findFirst()
            .orElseThrow();
    assertThat(Instant.parse(stopped.getFirstTimestamp()))
        .as("recovery waited afterSeconds after the loss was confirmed")
        .isAfterOrEqualTo(lostSince.plusSeconds(AFTER_SECONDS));
    assertThat(retainedVolumes()).hasSize(3);

    String first = rebuilt.getStatus().getMembers().get(0).getName();
    try (Client etcd = writerClient(rebuilt)) {
      long lost = lost(etcd, name, acked);
      assertThat(lost).as("every acknowledged write is in the restored cluster").isZero();
      TABLE.row(
          "2 of 3 members killed (quorum lost): restored from a snapshot after "
              + AFTER_SECONDS
              + " s (first member "
              + first
              + ")",
          acked.size(),
          lost,
          destructive(name),
          String.format("%.1f", seconds));
    }
  }

  @Test
  @Order(4)
  void theLeaderKilledInTheMiddleOfThreeToFiveToThreeLosesNoAcknowledgedWrite() throws Exception {
    String name = "dc";
    EtcdClusters.create(operator.client, ns, name, 3, VERSION);
    EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(3));
    try (Client etcd = writerClient(name, 3);
        AckedWriter writer = writer(etcd, name)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> writer.acknowledgedCount() > 20);
      Instant fault = Instant.now();
      EtcdClusters.edit(operator.client, ns, name, s -> s.setSize(5));
      EtcdCluster four =
          EtcdClusters.await(
              operator.client,
              ns,
              name,
              CONVERGE,
              "a fourth voter",
              c ->
                  c.getStatus().getMembers() != null
                      && c.getStatus().getMembers().stream()
                              .filter(
                                  m ->
                                      m.getRole()
                                          != dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members.Role
                                              .LEARNER)
                              .count()
                          >= 4
                      && c.getStatus().getLeader() != null);
      String leader = four.getStatus().getLeader();
      kubelet.killContainer(leader);
      // Once the others elected a new leader, the kubelet restarts the dead container.
      EtcdClusters.await(
          operator.client,
          ns,
          name,
          Duration.ofSeconds(60),
          "a new leader",
          c -> c.getStatus().getLeader() != null && !leader.equals(c.getStatus().getLeader()));
      kubelet.restartContainer(leader);
      EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready 5", EtcdClusters.readyWith(5));
      EtcdClusters.edit(operator.client, ns, name, s -> s.setSize(3));
      EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready 3", EtcdClusters.readyWith(3));
      double seconds = secondsSince(fault);
      await().atMost(Duration.ofSeconds(10)).until(() -> writer.acknowledgedCount() > 0);
      writer.stop();
      record(
          "leader (" + leader + ") killed during 3 -> 5 -> 3 under a writer",
          writer,
          etcd,
          name,
          seconds);
    }
  }

  @Test
  @Order(5)
  void defragmentationUnderAWriterFailsNoWriteAndShrinksEveryMember() throws Exception {
    String name = "dd";
    EtcdClusters.create(operator.client, ns, name, 3, VERSION);
    EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(3));
    try (Client etcd = writerClient(name, 3)) {
      // Garbage for defragmentation to return: 4 MB written, deleted and compacted away.
      String big = "x".repeat(10_000);
      for (int i = 0; i < 400; i++) {
        etcd.getKVClient().put(bytes("garbage/" + i), bytes(big)).get(10, TimeUnit.SECONDS);
      }
      long revision =
          etcd.getKVClient()
              .delete(
                  bytes("garbage/"),
                  io.etcd.jetcd.options.DeleteOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS)
              .getHeader()
              .getRevision();
      etcd.getKVClient().compact(revision).get(10, TimeUnit.SECONDS);
      try (AckedWriter writer = writer(etcd, name)) {
        await().atMost(Duration.ofSeconds(20)).until(() -> writer.acknowledgedCount() > 20);
        EtcdClusters.edit(
            operator.client,
            ns,
            name,
            s -> {
              var m = new dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance();
              var d = new dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Defragmentation();
              d.setSchedule("* * * * *");
              m.setDefragmentation(d);
              s.setMaintenance(m);
            });
        EtcdCluster done =
            EtcdClusters.await(
                operator.client,
                ns,
                name,
                Duration.ofSeconds(150),
                "a finished defragmentation round",
                c ->
                    c.getStatus().getDefragmentation() != null
                        && c.getStatus().getDefragmentation().getFinishedAt() != null);
        var round = done.getStatus().getDefragmentation();
        EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(3));
        double seconds = secondsSince(round.getStartedAt().toInstant());
        await().atMost(Duration.ofSeconds(10)).until(() -> writer.acknowledgedCount() > 0);
        writer.stop();
        assertThat(writer.failures()).as("no write failed: %s", writer.failureSamples()).isZero();
        var members = round.getMembers();
        assertThat(members)
            .extracting(m -> m.getName())
            .containsExactlyInAnyOrder(name + "-0", name + "-1", name + "-2");
        assertThat(members.get(2).getName())
            .as("the leader last")
            .isEqualTo(done.getStatus().getLeader());
        assertThat(members)
            .allSatisfy(
                m ->
                    assertThat(m.getDbSizeAfter())
                        .as("%s shrank", m.getName())
                        .isLessThan(m.getDbSizeBefore()));
        assertThat(ClusterObjects.eventReasons(operator.client, ns, name))
            .contains("Defragmented", "DefragmentationFinished");
        long before = members.stream().mapToLong(m -> m.getDbSizeBefore()).sum();
        long after = members.stream().mapToLong(m -> m.getDbSizeAfter()).sum();
        record(
            String.format(
                "defragmentation round under a writer (%d failed writes; %.1f MB -> %.1f MB)",
                writer.failures(), before / 1e6, after / 1e6),
            writer,
            etcd,
            name,
            seconds);
      }
    }
  }

  @Test
  @Order(6)
  void noSpaceIsReportedAndRecoveredOnlyOnceOptedIn() throws Exception {
    String name = "de";
    EtcdClusters.createWithQuota(operator.client, ns, name, VERSION, 1_048_576L);
    EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(1));

    try (Client etcd = writerClient(name, 1)) {
      // Five keys rewritten with 20 kB values until etcd refuses: the quota is 1 MiB.
      String big = "x".repeat(20_000);
      Map<String, Long> lastAcked = new java.util.HashMap<>();
      // etcd applies the put that crosses the quota and only then answers NOSPACE (its quota
      // applier checks, applies, and returns the error: every member must apply the same entries),
      // so the refused put's value may be the one read back; it is not a lost write.
      Map<String, Long> refused = new java.util.HashMap<>();
      long acknowledged = 0;
      boolean full = false;
      for (long seq = 0; seq < 500 && !full; seq++) {
        String key = name + "/key-" + (seq % 5);
        try {
          etcd.getKVClient().put(bytes(key), bytes(seq + big)).get(10, TimeUnit.SECONDS);
          lastAcked.put(key, seq);
          acknowledged++;
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e.getCause()).hasMessageContaining("database space exceeded");
          refused.put(key, seq);
          full = true;
        }
      }
      assertThat(full).as("the quota was reached").isTrue();

      EtcdCluster reported =
          EtcdClusters.await(
              operator.client,
              ns,
              name,
              Duration.ofSeconds(60),
              "Degraded NoSpace",
              c -> "NoSpace".equals(reason(c, "Degraded")));
      assertThat(reason(reported, "Ready")).isEqualTo("NoSpace");
      assertThat(condition(reported, "Degraded").getMessage()).contains("recoverFromNoSpace");
      assertThat(reported.getStatus().getAlarms()).containsExactly(name + "-0:NOSPACE");
      // The member stays ready (its probe ignores NOSPACE) and serves linearizable reads.
      for (String key : lastAcked.keySet()) {
        assertThat(etcd.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs())
            .as("read of " + key + " during NOSPACE")
            .hasSize(1);
      }
      await("not opted in: the alarm stays")
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  List.of(name + "-0:NOSPACE")
                      .equals(EtcdClusters.get(operator.client, ns, name).getStatus().getAlarms()));
      assertThat(ClusterObjects.eventReasons(operator.client, ns, name))
          .contains("NoSpace")
          .doesNotContain("Compacted");

      Instant optIn = Instant.now();
      EtcdClusters.edit(
          operator.client,
          ns,
          name,
          s -> {
            var m = new dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance();
            m.setRecoverFromNoSpace(true);
            s.setMaintenance(m);
          });
      EtcdCluster recovered =
          EtcdClusters.await(
              operator.client,
              ns,
              name,
              Duration.ofSeconds(60),
              "recovered",
              c -> EtcdClusters.readyWith(1).test(c) && c.getStatus().getAlarms() == null);
      double seconds = secondsSince(optIn);
      assertThat(condition(recovered, "Degraded").getStatus()).isEqualTo("False");
      assertThat(ClusterObjects.eventReasons(operator.client, ns, name))
          .contains("Compacted", "Defragmented", "AlarmDisarmed", "NoSpaceRecovered");
      etcd.getKVClient().put(bytes("after"), bytes("recovery")).get(10, TimeUnit.SECONDS);
      long lost = 0;
      for (Map.Entry<String, Long> e : lastAcked.entrySet()) {
        var kvs = etcd.getKVClient().get(bytes(e.getKey())).get(10, TimeUnit.SECONDS).getKvs();
        String read = kvs.isEmpty() ? null : kvs.get(0).getValue().toString(UTF8);
        Long refusedSeq = refused.get(e.getKey());
        boolean refusedButApplied = refusedSeq != null && (refusedSeq + big).equals(read);
        if (!(e.getValue() + big).equals(read) && !refusedButApplied) {
          lost++;
        }
      }
      assertThat(lost).as("the last acknowledged value of every key is read back").isZero();
      TABLE.row(
          "NOSPACE (1 MiB quota): reads keep working; reported, then recovered once opted in (seconds from opt-in)",
          acknowledged,
          lost,
          destructive(name),
          String.format("%.1f", seconds));
    }
  }

  // --- helpers --------------------------------------------------------------------------------

  void createWithRecovery(String name, int size) {
    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).build());
    var spec = new dev.bosun.etcd.v1alpha1.EtcdClusterSpec();
    spec.setSize(size);
    spec.setVersion(VERSION);
    DisasterRecovery dr = new DisasterRecovery();
    dr.setRestoreFromBackup(name + "-backup");
    dr.setAfterSeconds(AFTER_SECONDS);
    dr.setMaxSnapshotAgeMinutes(60);
    spec.setDisasterRecovery(dr);
    cluster.setSpec(spec);
    operator.client.resource(cluster).create();
    EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(size));
  }

  /** A one-shot S3 snapshot of the cluster, taken now. */
  EtcdBackup backupNow(String cluster) {
    EtcdBackup b = new EtcdBackup();
    b.setMetadata(new ObjectMetaBuilder().withName(cluster + "-backup").withNamespace(ns).build());
    EtcdBackupSpec spec = new EtcdBackupSpec();
    spec.setClusterName(cluster);
    BackupStoreSpec store =
        BackupStoreSpec.s3(s3.endpoint().toString(), s3.bucket(), null, "s3-credentials");
    spec.setStore(store);
    b.setSpec(spec);
    operator.client.resource(b).create();
    return await(cluster + " backed up")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                operator
                    .client
                    .resources(EtcdBackup.class)
                    .inNamespace(ns)
                    .withName(cluster + "-backup")
                    .get(),
            x ->
                x.getStatus() != null
                    && x.getStatus().getLastBackup() != null
                    && Conditions.isTrue(x.getStatus().getConditions(), "Ready"));
  }

  /** A client whose traffic goes through the writer identity to the first {@code n} members. */
  Client writerClient(String cluster, int n) {
    ClusterRef ref = new ClusterRef(ns, cluster, false, false);
    URI[] endpoints =
        IntStream.range(0, n)
            .mapToObj(
                i -> addressing.via(writerIdentity, addressing.clientUrl(ref, cluster + "-" + i)))
            .toArray(URI[]::new);
    return Client.builder().endpoints(endpoints).keepaliveWithoutCalls(false).build();
  }

  Client writerClient(EtcdCluster cluster) {
    ClusterRef ref = new ClusterRef(ns, cluster.getMetadata().getName(), false, false);
    URI[] endpoints =
        cluster.getStatus().getMembers().stream()
            .map(m -> addressing.via(writerIdentity, addressing.clientUrl(ref, m.getName())))
            .toArray(URI[]::new);
    return Client.builder().endpoints(endpoints).keepaliveWithoutCalls(false).build();
  }

  static AckedWriter writer(Client etcd, String cluster) {
    return AckedWriter.start(
        cluster + "-writer",
        seq ->
            etcd.getKVClient()
                .put(bytes(cluster + "/key-" + seq), bytes("value-" + seq))
                .get(3, TimeUnit.SECONDS),
        Duration.ofMillis(20),
        20_000,
        Duration.ofMinutes(5));
  }

  void record(String drill, AckedWriter writer, Client etcd, String cluster, double seconds)
      throws Exception {
    long lost = lost(etcd, cluster, writer.acknowledged());
    assertThat(lost).as("every acknowledged write is read back").isZero();
    TABLE.row(
        drill,
        writer.acknowledgedCount(),
        lost,
        destructive(cluster),
        String.format("%.1f", seconds));
  }

  /** How many acknowledged keys cannot be read back with their value. */
  static long lost(Client etcd, String cluster, SortedSet<Long> acked) throws Exception {
    Map<String, String> read =
        etcd
            .getKVClient()
            .get(
                bytes(cluster + "/key-"),
                io.etcd.jetcd.options.GetOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS)
            .getKvs()
            .stream()
            .collect(
                Collectors.toMap(
                    kv -> kv.getKey().toString(UTF8), kv -> kv.getValue().toString(UTF8)));
    return acked.stream()
        .filter(seq -> !("value-" + seq).equals(read.get(cluster + "/key-" + seq)))
        .count();
  }

  long destructive(String cluster) {
    return events(cluster).stream().filter(e -> DESTRUCTIVE.contains(e.getReason())).count();
  }

  List<Event> events(String cluster) {
    return ClusterObjects.events(operator.client, ns, cluster);
  }

  List<String> podUids() {
    return ClusterObjects.podUids(operator.client, ns);
  }

  List<String> retainedVolumes() {
    return ClusterObjects.retainedVolumes(operator.client, ns);
  }

  static io.fabric8.kubernetes.api.model.Condition condition(EtcdCluster c, String type) {
    return EtcdClusters.conditionOf(c, type);
  }

  static String reason(EtcdCluster c, String type) {
    var condition = EtcdClusters.conditionOf(c, type);
    return condition == null ? null : condition.getReason();
  }

  static double secondsSince(Instant start) {
    return Duration.between(start, Instant.now()).toMillis() / 1000.0;
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, UTF8);
  }
}
