package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.backup.BackupStoreSpec;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LogCapture;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.S3TestServer;
import dev.bosun.common.testing.drill.AckedWriter;
import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.DrillTable;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.common.testing.drill.TestHost;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.testing.AckedKeys;
import dev.bosun.etcd.testing.ClusterObjects;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.testing.LabAddressing;
import dev.bosun.etcd.testing.LabClients;
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
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Watch;
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

  @Test
  @Order(7)
  void aStaleMemberAnsweringFirstDuringAScaleDownGetsNoListedMembersPodDeleted() throws Exception {
    String name = "dg";
    String stale = name + "-0";
    String newest = name + "-3";
    ClusterRef ref = new ClusterRef(ns, name, false, false);
    // The operator asks members for the member list in name order, so dg-0 answers first as long
    // as the operator reaches it: dg-0 is the member cut off from its peers. Two etcd flags widen,
    // deterministically, a window that in production lasts about a second: a member cut off from
    // its peers names its last leader (and so looks healthy) until its election timeout, here 50 s
    // instead of 1 s, for dg-0 only; and etcd refuses to add a member unless the member handling
    // the add has been connected to every voter for the last 5 s (--strict-reconfig-check), which
    // stops holding about 5 s after the cut: the fourth member would join only in a race with it.
    Set<String> patient = java.util.concurrent.ConcurrentHashMap.newKeySet();
    kubelet.wrapping(
        (member, command) -> {
          List<String> flags = new java.util.ArrayList<>(command);
          flags.add("--strict-reconfig-check=false");
          if (patient.contains(member)) {
            flags.add("--election-timeout=50000");
          }
          return addressing.host(member).wrap(flags);
        });
    EtcdClusters.create(operator.client, ns, name, 3, VERSION);
    EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(3));
    // Restarted on its data with the long election timeout (a first member that bootstraps alone
    // would wait that long for its first election); this also moves leadership off it.
    patient.add(stale);
    kubelet.killContainer(stale);
    kubelet.restartContainer(stale);
    EtcdClusters.await(
        operator.client,
        ns,
        name,
        CONVERGE,
        "Ready 3, " + stale + " not the leader",
        c -> EtcdClusters.readyWith(3).test(c) && !stale.equals(c.getStatus().getLeader()));

    List<TestHost> peers =
        IntStream.range(1, 4).mapToObj(i -> addressing.host(name + "-" + i)).toList();
    List<String> deleted = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicLong lastAck =
        new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
    java.util.concurrent.atomic.AtomicLong longestGap =
        new java.util.concurrent.atomic.AtomicLong();
    try (Client etcd = clientOf(writerIdentity, ref, name + "-1", name + "-2");
        Client quorum = clientOf(writerIdentity, ref, name + "-1");
        Client staleMember = clientOf(writerIdentity, ref, stale);
        LogCapture logs = LogCapture.start();
        Watch podWatch =
            operator
                .client
                .pods()
                .inNamespace(ns)
                .withLabel(EtcdOperator.MEMBER_LABEL)
                .watch(
                    deletions(
                        pod -> {
                          // Read after the deletion: a member removed before it stays removed,
                          // so any listing here means the Pod went first.
                          String verdict = listedByQuorum(quorum, ref, pod);
                          deleted.add(pod);
                          if (verdict != null) {
                            violations.add(pod + ": " + verdict);
                          }
                        }));
        // The writer talks to dg-1 and dg-2: dg-0 cannot commit while it is cut off, so writes
        // through it would only time out; none of them would be acknowledged either way.
        AckedWriter writer =
            AckedWriter.start(
                name + "-writer",
                seq -> {
                  etcd.getKVClient()
                      .put(bytes(name + "/key-" + seq), bytes("value-" + seq))
                      .get(3, TimeUnit.SECONDS);
                  long now = System.nanoTime();
                  longestGap.accumulateAndGet(now - lastAck.getAndSet(now), Math::max);
                },
                Duration.ofMillis(20),
                20_000,
                Duration.ofMinutes(5))) {
      await().atMost(Duration.ofSeconds(20)).until(() -> writer.acknowledgedCount() > 20);
      Instant fault = Instant.now();
      peers.forEach(peer -> lab.cut(addressing.host(stale), peer));

      EtcdClusters.edit(operator.client, ns, name, s -> s.setSize(4));
      whileNoListedPodIsDeleted(newest + " a voter on the quorum's list", violations)
          .until(() -> Boolean.FALSE.equals(members(quorum, ref, true).get(newest)));
      // The premise: dg-0 never learnt of dg-3, and still names the leader (so the operator, which
      // asks it first, counts it healthy and takes its list).
      assertThat(members(staleMember, ref, false))
          .as("%s's own member list", stale)
          .containsOnlyKeys(name + "-0", name + "-1", name + "-2");
      long leader = statusLeader(quorum, ref, name + "-1");
      assertThat(statusLeader(staleMember, ref, stale))
          .as("%s still names the leader", stale)
          .isEqualTo(leader);

      EtcdClusters.edit(operator.client, ns, name, s -> s.setSize(3));
      whileNoListedPodIsDeleted(
              newest + " removed from the quorum's list and its Pod deleted", violations)
          .until(
              () ->
                  members(quorum, ref, true)
                          .keySet()
                          .equals(Set.of(name + "-0", name + "-1", name + "-2"))
                      && deleted.contains(newest));
      double cutSeconds = secondsSince(fault);
      // Had dg-0 stopped naming the leader, the scale-down would rightly have removed it (the
      // unhealthy voter first): that is a different drill.
      assertThat(statusLeader(staleMember, ref, stale))
          .as(
              "%s still names the leader: the operator counted it healthy while scaling down",
              stale)
          .isEqualTo(leader);
      List<String> refused =
          logs.lines().stream()
              .filter(l -> l.contains("differs from the first one read"))
              .filter(l -> l.contains("not deleting the Pod of " + newest))
              .toList();
      assertThat(refused)
          .as("the operator saw %s's list and refused the deletion it asked for", stale)
          .anyMatch(l -> l.contains("removing " + newest + " to scale down instead"));

      lab.healAll();
      long applied = status(quorum, ref, name + "-1").getRaftAppliedIndex();
      EtcdClusters.await(operator.client, ns, name, CONVERGE, "Ready", EtcdClusters.readyWith(3));
      // Caught up: dg-0 applied what the others had (dg-3's add, promotion and removal among it)
      // and passes its readiness probe (a leader and a linearizable read).
      await(stale + " caught up and ready")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () ->
                  status(staleMember, ref, stale).getRaftAppliedIndex() >= applied
                      && kubelet.probeReady(stale));
      double seconds = secondsSince(fault);
      writer.stop();
      assertThat(violations).as("Pods deleted while the quorum listed their member").isEmpty();
      assertThat(deleted).as("Pods deleted").containsExactly(newest);
      assertThat(Duration.ofNanos(longestGap.get()))
          .as("longest time without an acknowledged write (a lost quorum stops them all)")
          .isLessThan(Duration.ofSeconds(10));
      assertThat(destructive(name)).isZero();
      record(
          String.format(
              "stale member (%s, cut off from its peers for %.0f s, asked first) during 3 -> 4"
                  + " -> 3: %d of its plans refused, no listed member's Pod deleted, longest"
                  + " write gap %.1f s",
              stale, cutSeconds, refused.size(), longestGap.get() / 1e9),
          writer,
          etcd,
          name,
          seconds);
    }
  }

  // --- helpers --------------------------------------------------------------------------------

  /** A client through {@code identity} to the named members only. */
  Client clientOf(ClientIdentity identity, ClusterRef ref, String... members) {
    return LabClients.of(addressing, identity, ref, List.of(members));
  }

  /**
   * The member list {@code client}'s member serves, as name (a learner not yet started by its peer
   * URL) to whether it is a learner. With {@code linearizable}, a linearizable read first makes
   * that member apply everything committed before, membership changes included: the quorum's list.
   */
  Map<String, Boolean> members(Client client, ClusterRef ref, boolean linearizable)
      throws Exception {
    if (linearizable) {
      client.getKVClient().get(bytes("\0")).get(5, TimeUnit.SECONDS);
    }
    Map<URI, String> byPeerUrl = new java.util.HashMap<>();
    for (int i = 0; i < 8; i++) {
      String member = ref.name() + "-" + i;
      byPeerUrl.put(addressing.peerUrl(ref, member), member);
    }
    Map<String, Boolean> result = new java.util.TreeMap<>();
    for (var m : client.getClusterClient().listMember().get(5, TimeUnit.SECONDS).getMembers()) {
      String member =
          m.getName().isEmpty()
              ? m.getPeerURIs().stream()
                  .map(byPeerUrl::get)
                  .filter(java.util.Objects::nonNull)
                  .findFirst()
                  .orElse(Long.toHexString(m.getId()))
              : m.getName();
      result.put(member, m.isLearner());
    }
    return result;
  }

  /** The leader {@code member} names in its status (0: none). */
  long statusLeader(Client client, ClusterRef ref, String member) throws Exception {
    return status(client, ref, member).getLeader();
  }

  /** The status of {@code member}, asked through {@code client}, which reaches it as the writer. */
  io.etcd.jetcd.maintenance.StatusResponse status(Client client, ClusterRef ref, String member)
      throws Exception {
    return client
        .getMaintenanceClient()
        .statusMember(addressing.via(writerIdentity, addressing.clientUrl(ref, member)).toString())
        .get(5, TimeUnit.SECONDS);
  }

  /**
   * A wait for {@code what} that stops at the first Pod deleted while the quorum listed its member
   * (there is no point waiting for the rest), and rides out reads that fail meanwhile.
   */
  static org.awaitility.core.ConditionFactory whileNoListedPodIsDeleted(
      String what, List<String> violations) {
    return await(what)
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .failFast(
            "a listed member's Pod was deleted",
            () -> assertThat(violations).as("Pods deleted while listed").isEmpty());
  }

  /** Null when the quorum's list no longer names {@code member}, else why its deletion is wrong. */
  String listedByQuorum(Client quorum, ClusterRef ref, String member) {
    Exception failure = null;
    // Three tries (each read waits up to 5 s): one may time out while a membership change commits;
    // a quorum unreadable through all three is lost, and a deletion then is as wrong as one of a
    // listed member.
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        Map<String, Boolean> listed = members(quorum, ref, true);
        return listed.containsKey(member)
            ? "deleted while the quorum lists it (" + listed + ")"
            : null;
      } catch (Exception e) {
        failure = e;
      }
    }
    return "deleted while the quorum's list could not be read: " + failure;
  }

  /** Calls {@code deleted} once per Pod whose deletion starts (deletionTimestamp set, or gone). */
  static io.fabric8.kubernetes.client.Watcher<Pod> deletions(
      java.util.function.Consumer<String> deleted) {
    Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    return new io.fabric8.kubernetes.client.Watcher<>() {
      @Override
      public void eventReceived(Action action, Pod pod) {
        boolean going =
            action == Action.DELETED || pod.getMetadata().getDeletionTimestamp() != null;
        if (going && seen.add(pod.getMetadata().getUid())) {
          deleted.accept(pod.getMetadata().getName());
        }
      }

      @Override
      public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
    };
  }

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
    return LabClients.of(
        addressing,
        writerIdentity,
        new ClusterRef(ns, cluster, false, false),
        LabClients.firstMembers(cluster, n));
  }

  Client writerClient(EtcdCluster cluster) {
    return LabClients.of(
        addressing,
        writerIdentity,
        new ClusterRef(ns, cluster.getMetadata().getName(), false, false),
        cluster.getStatus().getMembers().stream().map(m -> m.getName()).toList());
  }

  static AckedWriter writer(Client etcd, String cluster) {
    return AckedKeys.writer(etcd, cluster);
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

  static long lost(Client etcd, String cluster, SortedSet<Long> acked) throws Exception {
    return AckedKeys.lost(etcd, cluster, acked);
  }

  long destructive(String cluster) {
    return ClusterObjects.destructive(operator.client, ns, cluster);
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
    return AckedKeys.bytes(s);
  }
}
