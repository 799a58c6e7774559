package dev.bosun.etcd.chaos;

import dev.bosun.common.backup.BackupStoreSpec;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.chaos.Fault;
import dev.bosun.common.testing.chaos.FaultKind;
import dev.bosun.common.testing.chaos.Nemesis;
import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.Endpoint;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.etcd.testing.EtcdBackups;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdCut;
import dev.bosun.etcd.testing.LabAddressing;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Defragmentation;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The etcd operator's faults in a {@link NetworkLab}: members killed (the kubelet restarts them on
 * their data when the fault heals), frozen, partitioned from each other and from the operator and
 * the clients; the operator restarted, or killed at its next request of a kind to the API server or
 * call of a kind to etcd ({@link #besides()}; mid-step: before it is sent, or right after) and
 * started again when the fault heals; the cluster scaled out and back; defragmentation asked for;
 * the EtcdCluster deleted and created again over its kept volumes; a one-shot backup asked for, and
 * a new cluster restored from the newest backup asked for so far (the checker proves both hold what
 * was acknowledged before).
 */
final class EtcdNemesis implements Nemesis {

  static final String KILL = "kill";
  static final String FREEZE = "freeze";
  static final String PARTITION = "partition";
  static final String OPERATOR_DOWN = "operator down";
  static final String OPERATOR_DIES_AT = "operator dies";
  static final String SCALE = "scale out";
  static final String DEFRAGMENT = "defragment";
  static final String RECREATE = "re-create over volumes";
  static final String AT_ONCE = "at once";
  static final String PODS_GONE = "once its Pods are gone";
  static final String BACKUP = "back up";
  static final String RESTORE = "restore a new cluster";

  /** The cluster a restore creates: one member, beside the one under faults. */
  static final String RESTORED = "rs";

  /** A one-shot backup the schedule asked for, and the puts acknowledged before it was asked. */
  record AskedBackup(String name, SortedSet<Long> acknowledgedBefore) {}

  /** The menu for a 3-member cluster {@code cluster}: targets are member names or groups. */
  static List<FaultKind> menu(String cluster) {
    List<String> members = List.of(cluster + "-0", cluster + "-1", cluster + "-2");
    List<String> partitions = new ArrayList<>();
    for (String m : members) {
      List<String> others = members.stream().filter(o -> !o.equals(m)).toList();
      // A minority cut off (with the operator and the clients on the majority's side) and a
      // majority cut off (the operator and the clients left with one member).
      partitions.add(m + "|" + String.join(",", others));
      partitions.add(String.join(",", others) + "|" + m);
    }
    return List.of(
        FaultKind.lasting(KILL, 3, members, Duration.ofSeconds(1), Duration.ofSeconds(6)),
        FaultKind.lasting(FREEZE, 3, members, Duration.ofSeconds(2), Duration.ofSeconds(8)),
        FaultKind.lasting(PARTITION, 4, partitions, Duration.ofSeconds(3), Duration.ofSeconds(10)),
        FaultKind.lasting(
            OPERATOR_DOWN, 2, List.of("operator"), Duration.ofSeconds(1), Duration.ofSeconds(6)),
        FaultKind.lasting(
            OPERATOR_DIES_AT, 2, ApiBoundaries.ALL, Duration.ofSeconds(3), Duration.ofSeconds(12)),
        FaultKind.lasting(
            SCALE, 1, List.of("4", "5"), Duration.ofSeconds(8), Duration.ofSeconds(20)),
        FaultKind.instant(DEFRAGMENT, 1, List.of("cluster")),
        FaultKind.instant(RECREATE, 1, List.of(AT_ONCE, PODS_GONE)),
        FaultKind.instant(BACKUP, 1, List.of("the backup volume")),
        FaultKind.instant(RESTORE, 1, List.of(RESTORED)));
  }

  /**
   * Faults drawn besides {@link #menu}, on a random stream of their own (so that every seed
   * recorded before they were added replays its faults as they were): the operator killed at an
   * etcd call.
   */
  static List<FaultKind> besides() {
    return List.of(
        FaultKind.lasting(
            OPERATOR_DIES_AT,
            1,
            EtcdBoundaries.ALL,
            Duration.ofSeconds(3),
            Duration.ofSeconds(12)));
  }

  /** How many faults of {@link #besides()} a schedule has. */
  static final int BESIDES = 1;

  private final NetworkLab lab;
  private final LabAddressing addressing;
  private final ProcessKubelet kubelet;
  private final RunningOperator operator;
  private final String ns;
  private final String cluster;
  private final List<ClientIdentity> outsiders;
  private final Supplier<SortedSet<Long>> acknowledged;
  private final List<AskedBackup> backups = new ArrayList<>();
  private AskedBackup restoredFrom;

  /** Killed members and the UID of the Pod whose container was killed. */
  private final Map<String, String> killed = new HashMap<>();

  private final Map<Integer, LocalProcess> frozen = new HashMap<>();
  private final Map<Set<Endpoint>, Integer> cuts = new HashMap<>();
  private final EtcdCut etcdCut;
  private boolean operatorDown;
  private boolean scaled;
  private volatile boolean deathArmed;

  /** How many deaths were armed so far: tells a watch whether the armed death is still its own. */
  private volatile long deaths;

  private CompletableFuture<Void> recreate;

  /**
   * @param outsiders the operator's and the clients' identities, cut together with the side of a
   *     partition listed first
   * @param acknowledged the puts acknowledged so far
   */
  EtcdNemesis(
      NetworkLab lab,
      LabAddressing addressing,
      ProcessKubelet kubelet,
      RunningOperator operator,
      String ns,
      String cluster,
      List<ClientIdentity> outsiders,
      Supplier<SortedSet<Long>> acknowledged,
      EtcdCut etcdCut) {
    this.lab = lab;
    this.addressing = addressing;
    this.kubelet = kubelet;
    this.operator = operator;
    this.ns = ns;
    this.cluster = cluster;
    this.outsiders = outsiders;
    this.acknowledged = acknowledged;
    this.etcdCut = etcdCut;
  }

  /** The backups the schedule asked for, in order. */
  synchronized List<AskedBackup> backups() {
    return List.copyOf(backups);
  }

  /** The backup the restored cluster was created from, or null when none was. */
  synchronized AskedBackup restoredFrom() {
    return restoredFrom;
  }

  @Override
  public synchronized void inject(Fault fault) throws Exception {
    switch (fault.kind()) {
      case KILL -> {
        if (killed.containsKey(fault.target()) || recreating()) {
          throw new IllegalStateException(
              fault.target() + " is already down or its cluster is being re-created");
        }
        killed.put(fault.target(), podUid(fault.target()));
        kubelet.killContainer(fault.target());
      }
      case FREEZE -> {
        LocalProcess p =
            kubelet
                .process(fault.target())
                .orElseThrow(() -> new IllegalStateException(fault.target() + " is not running"));
        p.pause();
        frozen.put(fault.index(), p);
      }
      case PARTITION -> pairs(fault.target()).forEach(this::cut);
      case OPERATOR_DOWN -> {
        if (operatorDown || deathArmed) {
          throw new IllegalStateException("the operator is already down or set to die");
        }
        operator.stop();
        operatorDown = true;
      }
      case OPERATOR_DIES_AT -> armDeath(fault.target());
      case SCALE -> {
        resize(Integer.parseInt(fault.target()));
        scaled = true;
      }
      case RECREATE -> recreateOverVolumes(fault.target());
      case BACKUP -> askBackup(fault.index());
      case RESTORE -> restoreNewCluster();
      case DEFRAGMENT ->
          EtcdClusters.edit(
              operator.testClient,
              ns,
              cluster,
              s -> {
                // Every minute: the round starts at the next minute boundary within the schedule.
                Defragmentation d = new Defragmentation();
                d.setSchedule("* * * * *");
                Maintenance m = new Maintenance();
                m.setDefragmentation(d);
                s.setMaintenance(m);
              });
      default -> throw new IllegalArgumentException("no such fault: " + fault.kind());
    }
  }

  @Override
  public synchronized void heal(Fault fault) throws Exception {
    switch (fault.kind()) {
      case KILL -> restartKilled(fault.target());
      case FREEZE -> {
        LocalProcess p = frozen.remove(fault.index());
        if (p != null && p.isAlive()) {
          p.resume();
        }
      }
      case PARTITION -> pairs(fault.target()).forEach(this::heal);
      case OPERATOR_DOWN -> startOperator();
      case OPERATOR_DIES_AT -> {
        if (deathArmed) {
          deathArmed = false;
          etcdCut.heal();
          operator.cut.heal();
          startOperator();
        }
      }
      case SCALE -> {
        resize(3);
        scaled = false;
      }
      default -> {
        // Instantaneous faults have nothing to heal.
      }
    }
  }

  @Override
  public synchronized void healAll() throws Exception {
    finishRecreate();
    for (LocalProcess p : frozen.values()) {
      if (p.isAlive()) {
        p.resume();
      }
    }
    frozen.clear();
    cuts.clear();
    lab.healAll();
    for (String member : List.copyOf(killed.keySet())) {
      restartKilled(member);
    }
    deathArmed = false;
    etcdCut.heal();
    operator.cut.heal();
    startOperator();
    resize(3);
    scaled = false;
  }

  /**
   * Asks for a one-shot backup into the operator's backup volume, noting what was acknowledged
   * before: a snapshot taken after it was asked for must hold all of that, whatever the faults.
   */
  private void askBackup(int index) {
    SortedSet<Long> before = acknowledged.get();
    String name = cluster + "-backup-" + index;
    EtcdBackups.create(operator.testClient, ns, name, cluster, BackupStoreSpec.volume(null), null);
    backups.add(new AskedBackup(name, before));
  }

  /**
   * Creates a one-member cluster bootstrapped from the newest backup asked for (which may not have
   * succeeded yet: the restore waits for it). Once per schedule.
   */
  private void restoreNewCluster() {
    if (backups.isEmpty() || restoredFrom != null) {
      throw new IllegalStateException("no backup asked for yet, or a cluster already restored");
    }
    AskedBackup from = backups.get(backups.size() - 1);
    operator
        .testClient
        .resource(EtcdBackups.restoredSpec(ns, RESTORED, 1, EtcdChaosIT.VERSION, from.name()))
        .create();
    restoredFrom = from;
  }

  /**
   * Arms the operator's cut at {@code boundary} and watches it: once the operator reaches that
   * request, its process is stopped right there (within a poll of 20 ms), as a crash would stop it.
   * It stays down until the fault heals; a boundary never reached only disarms.
   */
  private void armDeath(String boundary) {
    if (operatorDown || deathArmed) {
      throw new IllegalStateException("the operator is already down or set to die");
    }
    if (EtcdBoundaries.isEtcd(boundary)) {
      // Once etcd is cut, the API server is too: nothing the operator does past the call lands.
      Runnable apiToo = () -> operator.cut.before(request -> true);
      if (ApiBoundaries.before(boundary)) {
        etcdCut.before(EtcdBoundaries.call(boundary), apiToo);
      } else {
        etcdCut.after(EtcdBoundaries.call(boundary), apiToo);
      }
    } else if (ApiBoundaries.before(boundary)) {
      operator.cut.before(ApiBoundaries.request(boundary));
    } else {
      operator.cut.after(ApiBoundaries.request(boundary));
    }
    deathArmed = true;
    long armed = ++deaths;
    Thread watch = new Thread(() -> awaitDeath(armed), "etcd-chaos-operator-death");
    watch.setDaemon(true);
    watch.start();
  }

  private void awaitDeath(long armed) {
    // Bounded: the longest armed fault lasts 12 s and its heal (or healAll) disarms it.
    org.awaitility.Awaitility.await("the operator reaches its boundary or the fault heals")
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                !deathArmed
                    || deaths != armed
                    || operator.cut.cutAt() != null
                    || etcdCut.cutAt() != null);
    synchronized (this) {
      // Only the death this watch was started for: once it healed, a later one may be armed
      // before this thread gets here, and it must not stop the operator before its boundary.
      if (deathArmed && deaths == armed && !operatorDown) {
        String at = etcdCut.cutAt() != null ? etcdCut.cutAt() : operator.cut.cutAt();
        operator.stop();
        operatorDown = true;
        System.out.println("the operator died at " + at);
      }
    }
  }

  /**
   * Deletes the EtcdCluster (the garbage collector takes its Pods; its volumes are kept, the
   * default) and creates it again with the same spec: {@link #AT_ONCE}, while the old Pods still
   * run, or {@link #PODS_GONE}, from a thread of its own once they are gone (the schedule plays on
   * meanwhile). Either way the operator must resume the cluster the volumes hold. Not while a
   * member is killed or frozen or the size is changed: those faults' heals act on the Pods this one
   * replaces.
   */
  private void recreateOverVolumes(String when) {
    if (!killed.isEmpty() || !frozen.isEmpty() || scaled || recreating()) {
      throw new IllegalStateException(
          "a member is down, the size is changed or a re-create is under way");
    }
    EtcdCluster old = EtcdClusters.delete(operator.testClient, ns, cluster);
    if (AT_ONCE.equals(when)) {
      EtcdClusters.createAgain(operator.testClient, old);
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    recreate = done;
    Thread t =
        new Thread(
            () -> {
              try {
                EtcdClusters.awaitMemberPodsGone(operator.testClient, ns, Duration.ofMinutes(2));
                EtcdClusters.createAgain(operator.testClient, old);
                done.complete(null);
              } catch (Throwable e) {
                done.completeExceptionally(e);
              }
            },
            "etcd-chaos-recreate");
    t.setDaemon(true);
    t.start();
  }

  private boolean recreating() {
    return recreate != null && !recreate.isDone();
  }

  /** Waits for a re-create under way: the cluster must exist before anything else is healed. */
  private void finishRecreate() throws Exception {
    if (recreate != null) {
      try {
        recreate.get(3, TimeUnit.MINUTES);
      } finally {
        recreate = null;
      }
    }
  }

  /** The UID of the member's Pod, which must exist and not be on its way out. */
  private String podUid(String member) {
    Pod pod = operator.testClient.pods().inNamespace(ns).withName(member).get();
    if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
      throw new IllegalStateException(member + " has no Pod");
    }
    return pod.getMetadata().getUid();
  }

  /**
   * Restarts a killed member's container, as the kubelet would, unless its Pod was replaced
   * meanwhile (a cluster re-created at once): the new Pod's container already runs.
   */
  private void restartKilled(String member) {
    String uid = killed.remove(member);
    Pod pod = operator.testClient.pods().inNamespace(ns).withName(member).get();
    if (uid != null && pod != null && uid.equals(pod.getMetadata().getUid())) {
      kubelet.restartContainer(member);
    }
  }

  private void startOperator() {
    if (operatorDown) {
      operator.start();
      operatorDown = false;
    }
  }

  private void resize(int size) {
    EtcdClusters.edit(operator.testClient, ns, cluster, s -> s.setSize(size));
  }

  /** The endpoint pairs a partition "a,b|c" cuts: across the bar, and the left side's outsiders. */
  private List<Set<Endpoint>> pairs(String target) {
    String[] sides = target.split("\\|");
    List<Endpoint> left = Arrays.stream(sides[0].split(",")).map(this::host).toList();
    List<Endpoint> right = Arrays.stream(sides[1].split(",")).map(this::host).toList();
    List<Set<Endpoint>> pairs = new ArrayList<>();
    for (Endpoint a : left) {
      for (Endpoint b : right) {
        pairs.add(Set.of(a, b));
      }
      for (Endpoint outsider : outsiders) {
        pairs.add(Set.of(a, outsider));
      }
    }
    return pairs;
  }

  private Endpoint host(String member) {
    return addressing.host(member);
  }

  /**
   * Overlapping partitions share pairs: a pair is cut by its first partition, healed by its last.
   */
  private void cut(Set<Endpoint> pair) {
    if (cuts.merge(pair, 1, Integer::sum) == 1) {
      var it = pair.iterator();
      lab.cut(it.next(), it.next());
    }
  }

  private void heal(Set<Endpoint> pair) {
    Integer left = cuts.computeIfPresent(pair, (p, n) -> n == 1 ? null : n - 1);
    if (left == null) {
      var it = pair.iterator();
      lab.heal(it.next(), it.next());
    }
  }
}
