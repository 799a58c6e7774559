package dev.bosun.etcd.chaos;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.ScratchDirectories;
import dev.bosun.common.testing.chaos.ChaosResult;
import dev.bosun.common.testing.chaos.ChaosSettings;
import dev.bosun.common.testing.chaos.ChaosTable;
import dev.bosun.common.testing.chaos.FaultSchedule;
import dev.bosun.common.testing.chaos.ScheduleRun;
import dev.bosun.common.testing.chaos.ScheduleRunner;
import dev.bosun.common.testing.drill.AckedWriter;
import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.testing.AckedKeys;
import dev.bosun.etcd.testing.ClusterObjects;
import dev.bosun.etcd.testing.EtcdBackups;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdCut;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.testing.LabAddressing;
import dev.bosun.etcd.testing.LabClients;
import dev.bosun.etcd.testing.MemberNamespace;
import dev.bosun.etcd.testing.RestoredEtcd;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Randomized fault schedules against a 3-member cluster run by the real operator: members killed,
 * frozen and partitioned (from each other, the operator and the clients), the operator restarted,
 * scale-outs, defragmentation, the cluster re-created over its kept volumes, backups and a restore
 * into a new cluster, overlapping, while an acknowledged writer and a single-key register run.
 * Checked at sampled instants and at the end: every acknowledged put readable, no register read
 * back in time, no member replaced and no destructive Event, Ready within a bound after the last
 * heal, and every put acknowledged before a backup was asked for in its snapshot and in the cluster
 * restored from it. {@code -Dbosun.chaos.seed=S} replays a schedule, {@code
 * -Dbosun.chaos.minutes=M} runs fresh ones for M minutes; the table goes to target/chaos-results.
 */
@ExtendWith(ControlPlaneExtension.class)
class EtcdChaosIT {

  static final String VERSION = "3.4.23";
  static final String CLUSTER = "ch";
  static final String REPLAY = "./bosun chaos etcd";

  /**
   * The CI seed: one schedule (12 faults over 40 s) keeps the class near a minute and a half. Seed
   * 209 draws two backups and a restore between them, operator deaths, kills, a partition and a
   * re-create at once.
   */
  static final List<Long> CI_SEEDS = List.of(209L);

  static final Duration SAMPLE_EVERY = Duration.ofSeconds(4);

  /** Where a backup's snapshot is restored by hand to be read (loopback, outside the lab). */
  static final String RESTORED_BY_HAND = "127.0.97.1";

  static final ChaosTable TABLE = new ChaosTable("etcd, 3 members", "reads back in time");

  static NetworkLab lab;
  static LabAddressing addressing;
  static ClientIdentity operatorIdentity;
  static ClientIdentity writerIdentity;
  static ClientIdentity readerIdentity;
  static ClientIdentity checkerIdentity;
  static RunningOperator operator;

  /** Every etcd call of the operator passes it: a schedule kills the operator at one of them. */
  static final EtcdCut ETCD_CUT = new EtcdCut();

  @BeforeAll
  static void start() {
    lab = NetworkLab.create("etcd-chaos");
    addressing = new LabAddressing(lab);
    operatorIdentity = lab.client("operator");
    writerIdentity = lab.client("writer");
    readerIdentity = lab.client("reader");
    checkerIdentity = lab.client("checker");
    operator =
        EtcdUnderTest.operator(
                addressing, url -> addressing.via(operatorIdentity, url), List.of(ETCD_CUT))
            .start();
  }

  @AfterAll
  static void stop() {
    try {
      TABLE.report(Path.of("target/chaos-results/etcd.md"));
    } finally {
      if (operator != null) {
        operator.close();
      }
      if (lab != null) {
        lab.close();
      }
    }
  }

  @Test
  void randomFaultSchedulesLoseNoAcknowledgedWriteAndNoReadGoesBackInTime() throws Exception {
    ChaosSettings settings =
        ChaosSettings.fromSystemProperties(
            12, Duration.ofSeconds(40), 2, Duration.ofSeconds(120), CI_SEEDS);
    settings.runAll(
        TABLE,
        "[chaos]",
        (seed, index) ->
            runSchedule(
                settings.schedule(
                    seed, EtcdNemesis.menu(CLUSTER), EtcdNemesis.besides(), EtcdNemesis.BESIDES),
                settings.readyBound()));
  }

  /**
   * Plays one schedule on a fresh cluster; returns null, or the failure with everything to replay
   * it.
   */
  String runSchedule(FaultSchedule schedule, Duration readyBound) throws Exception {
    try (MemberNamespace space =
        MemberNamespace.create(
            operator.testClient,
            "etcdchaos",
            k -> k.wrapping((member, command) -> addressing.host(member).wrap(command)))) {
      String ns = space.name;
      ClusterRef ref = new ClusterRef(ns, CLUSTER, false, false);
      List<String> members = LabClients.firstMembers(CLUSTER, 3);
      long creating = System.nanoTime();
      EtcdClusters.create(operator.testClient, ns, CLUSTER, 3, VERSION);
      EtcdCluster before =
          EtcdClusters.await(
              operator.testClient, ns, CLUSTER, readyBound, "Ready", EtcdClusters.readyWith(3));
      Duration createdIn = Duration.ofNanos(System.nanoTime() - creating);
      Map<String, String> identities = identities(ns, before);
      EtcdNemesis nemesis;
      List<String> problems = new ArrayList<>();
      ScheduleRun run;
      AckedWriter writer;
      Register register;
      Duration readyAfterHeal;
      long lost;
      List<String> notes = new ArrayList<>();
      try (Client writes = LabClients.of(addressing, writerIdentity, ref, members);
          Client reads = LabClients.of(addressing, readerIdentity, ref, members);
          Client checks = LabClients.of(addressing, checkerIdentity, ref, members)) {
        writer = AckedKeys.writer(writes, CLUSTER);
        nemesis =
            new EtcdNemesis(
                lab,
                addressing,
                space.kubelet,
                operator,
                ns,
                CLUSTER,
                List.of(operatorIdentity, writerIdentity, readerIdentity, checkerIdentity),
                writer::acknowledged,
                ETCD_CUT);
        register = Register.start(CLUSTER + "/register", writes, reads, Duration.ofMinutes(5));
        Sampler sampler = new Sampler(checks, writer, problems);
        sampler.start();
        try {
          run = new ScheduleRunner(nemesis, ScheduleRunner.SYSTEM).run(schedule);
        } finally {
          sampler.close();
        }
        long healed = System.nanoTime();
        EtcdClusters.await(
            operator.testClient,
            ns,
            CLUSTER,
            readyBound,
            "Ready after the last heal",
            EtcdClusters.readyWith(3));
        readyAfterHeal = Duration.ofNanos(System.nanoTime() - healed);
        writer.stop();
        register.close();
        writer.awaitDone(Duration.ofSeconds(10));
        lost = AckedKeys.lost(checks, CLUSTER, writer.acknowledged());
        lost += backupsAndRestore(ns, nemesis, readyBound, problems, notes);
        long finalValue = register.value(checks);
        if (finalValue < register.acknowledged()) {
          lost++;
          problems.add(
              "the register reads "
                  + finalValue
                  + " after "
                  + register.acknowledged()
                  + " was acknowledged");
        }
      }
      if (lost > 0) {
        problems.add(lost + " acknowledged puts not read back at the end");
      }
      problems.addAll(register.backInTime());
      long destructive = ClusterObjects.destructive(operator.testClient, ns, CLUSTER);
      if (destructive > 0) {
        problems.add(
            destructive
                + " destructive actions: "
                + ClusterObjects.eventReasons(operator.testClient, ns, CLUSTER));
      }
      EtcdCluster after = EtcdClusters.get(operator.testClient, ns, CLUSTER);
      Map<String, String> now = identities(ns, after);
      identities.forEach(
          (member, identity) -> {
            String later = now.get(member);
            if (later != null && !later.equals(identity)) {
              problems.add(member + " replaced: " + identity + " became " + later);
            }
          });
      ChaosResult result =
          new ChaosResult(
              schedule.seed(),
              schedule.faults().size(),
              run.injected(),
              writer.acknowledgedCount() + register.acknowledged(),
              lost,
              register.backInTime().size(),
              writer.longestGap(),
              readyAfterHeal);
      TABLE.add(result);
      // The schedule and what happened, for every run: a green long run is evidence too.
      System.out.printf(
          "%s%n%s%ncluster Ready in %.1f s before the schedule, %.1f s after the last heal%n%s",
          schedule.text(REPLAY),
          run.logText(),
          createdIn.toMillis() / 1000.0,
          readyAfterHeal.toMillis() / 1000.0,
          notes.stream().map(n -> n + System.lineSeparator()).collect(Collectors.joining()));
      return problems.isEmpty() ? null : run.failure("[chaos]", problems, REPLAY);
    }
  }

  /**
   * Proves the schedule's backups and its restored cluster: each backup succeeds within the bound
   * and its snapshot, restored by hand, holds every put acknowledged before it was asked for; the
   * restored cluster is Ready within the bound and serves all of those of its backup. Returns how
   * many such puts are missing; {@code notes} gets a line for each. The snapshots are deleted once
   * read (a long run would otherwise fill the disk).
   */
  long backupsAndRestore(
      String ns, EtcdNemesis nemesis, Duration bound, List<String> problems, List<String> notes)
      throws Exception {
    long missing = 0;
    try {
      for (EtcdNemesis.AskedBackup asked : nemesis.backups()) {
        EtcdBackup done;
        try {
          done = EtcdBackups.awaitSucceeded(operator.testClient, ns, asked.name(), bound);
        } catch (ConditionTimeoutException e) {
          problems.add(asked.name() + " did not succeed within " + bound.toSeconds() + " s");
          continue;
        }
        Path file = EtcdUnderTest.BACKUP_DIR.resolve(done.getStatus().getLastBackup().key());
        Map<String, String> restored;
        try (RestoredEtcd etcd = RestoredEtcd.start(file, RESTORED_BY_HAND)) {
          restored = etcd.read(CLUSTER + "/key-");
        }
        long absent =
            asked.acknowledgedBefore().stream()
                .filter(seq -> !("value-" + seq).equals(restored.get(CLUSTER + "/key-" + seq)))
                .count();
        missing += absent;
        notes.add(
            String.format(
                "%s: snapshot at revision %d holds %d of the %d puts acknowledged before it was"
                    + " asked for",
                asked.name(),
                done.getStatus().getLastRevision(),
                asked.acknowledgedBefore().size() - absent,
                asked.acknowledgedBefore().size()));
        if (absent > 0) {
          problems.add(asked.name() + " lacks " + absent + " puts acknowledged before it");
        }
      }
      EtcdNemesis.AskedBackup from = nemesis.restoredFrom();
      if (from != null) {
        long restoring = System.nanoTime();
        try {
          EtcdClusters.await(
              operator.testClient,
              ns,
              EtcdNemesis.RESTORED,
              bound,
              "the restored cluster Ready",
              EtcdClusters.readyWith(1));
        } catch (ConditionTimeoutException e) {
          EtcdCluster rs = EtcdClusters.get(operator.testClient, ns, EtcdNemesis.RESTORED);
          var ready = rs == null ? null : EtcdClusters.conditionOf(rs, "Ready");
          problems.add(
              "the cluster restored from "
                  + from.name()
                  + " not Ready within "
                  + bound.toSeconds()
                  + " s: "
                  + (ready == null ? "no Ready condition" : ready.getMessage()));
          return missing;
        }
        double seconds = (System.nanoTime() - restoring) / 1e9;
        ClusterRef ref = new ClusterRef(ns, EtcdNemesis.RESTORED, false, false);
        long absent;
        try (Client restored =
            LabClients.of(
                addressing, checkerIdentity, ref, LabClients.firstMembers(ref.name(), 1))) {
          absent = AckedKeys.lost(restored, CLUSTER, from.acknowledgedBefore());
        }
        missing += absent;
        notes.add(
            String.format(
                "%s restored from %s: Ready %.1f s after the checks began, serves %d of its %d"
                    + " puts",
                EtcdNemesis.RESTORED,
                from.name(),
                seconds,
                from.acknowledgedBefore().size() - absent,
                from.acknowledgedBefore().size()));
        if (absent > 0) {
          problems.add(
              "the cluster restored from " + from.name() + " lacks " + absent + " of its puts");
        }
      }
    } finally {
      ScratchDirectories.deleteQuietly(EtcdUnderTest.BACKUP_DIR.resolve(ns));
    }
    return missing;
  }

  /**
   * Each member's volume UID and etcd member ID: a member replaced changes one of them (a Pod
   * recreated on its volume, as after a re-create over kept volumes, changes neither).
   */
  Map<String, String> identities(String ns, EtcdCluster cluster) {
    Map<String, String> ids =
        cluster.getStatus().getMembers().stream()
            .filter(m -> m.getId() != null)
            .collect(Collectors.toMap(m -> m.getName(), m -> m.getId(), (a, b) -> a, TreeMap::new));
    Map<String, String> result = new TreeMap<>();
    for (var volume :
        operator
            .client
            .persistentVolumeClaims()
            .inNamespace(ns)
            .withLabel(EtcdOperator.MEMBER_LABEL)
            .list()
            .getItems()) {
      String name = volume.getMetadata().getLabels().get(EtcdOperator.MEMBER_LABEL);
      result.put(name, "volume " + volume.getMetadata().getUid() + ", member " + ids.get(name));
    }
    return result;
  }

  /**
   * Reads every acknowledged key back every {@link #SAMPLE_EVERY} while the schedule plays: a
   * successful read missing one is a lost write seen mid-schedule (a failed read is only
   * unavailability).
   */
  static final class Sampler extends Thread {
    private final Client checks;
    private final AckedWriter writer;
    private final List<String> problems;
    private final CountDownLatch stop = new CountDownLatch(1);
    final AtomicLong samples = new AtomicLong();

    Sampler(Client checks, AckedWriter writer, List<String> problems) {
      super("etcd-chaos-sampler");
      this.checks = checks;
      this.writer = writer;
      this.problems = problems;
    }

    @Override
    public void run() {
      try {
        while (!stop.await(SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS)) {
          var acked = writer.acknowledged();
          try {
            long missing = AckedKeys.lost(checks, CLUSTER, acked);
            samples.incrementAndGet();
            if (missing > 0) {
              synchronized (problems) {
                problems.add(
                    "a sample missed " + missing + " of " + acked.size() + " acknowledged puts");
              }
            }
          } catch (Exception unavailable) {
            // Unavailable now: the writer's longest gap measures that.
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void close() throws InterruptedException {
      stop.countDown();
      join(Duration.ofSeconds(20).toMillis());
    }
  }
}
