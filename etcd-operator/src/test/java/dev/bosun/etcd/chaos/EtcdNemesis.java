package dev.bosun.etcd.chaos;

import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.chaos.Fault;
import dev.bosun.common.testing.chaos.FaultKind;
import dev.bosun.common.testing.chaos.Nemesis;
import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.Endpoint;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.LabAddressing;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Defragmentation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The etcd operator's faults in a {@link NetworkLab}: members killed (the kubelet restarts them on
 * their data when the fault heals), frozen, partitioned from each other and from the operator and
 * the clients; the operator restarted; the cluster scaled out and back; defragmentation asked for.
 */
final class EtcdNemesis implements Nemesis {

  static final String KILL = "kill";
  static final String FREEZE = "freeze";
  static final String PARTITION = "partition";
  static final String OPERATOR_DOWN = "operator down";
  static final String SCALE = "scale out";
  static final String DEFRAGMENT = "defragment";

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
            SCALE, 1, List.of("4", "5"), Duration.ofSeconds(8), Duration.ofSeconds(20)),
        FaultKind.instant(DEFRAGMENT, 1, List.of("cluster")));
  }

  private final NetworkLab lab;
  private final LabAddressing addressing;
  private final ProcessKubelet kubelet;
  private final RunningOperator operator;
  private final String ns;
  private final String cluster;
  private final List<ClientIdentity> outsiders;
  private final Set<String> killed = new HashSet<>();
  private final Map<Integer, LocalProcess> frozen = new HashMap<>();
  private final Map<Set<Endpoint>, Integer> cuts = new HashMap<>();
  private boolean operatorDown;

  /**
   * @param outsiders the operator's and the clients' identities, cut together with the side of a
   *     partition listed first
   */
  EtcdNemesis(
      NetworkLab lab,
      LabAddressing addressing,
      ProcessKubelet kubelet,
      RunningOperator operator,
      String ns,
      String cluster,
      List<ClientIdentity> outsiders) {
    this.lab = lab;
    this.addressing = addressing;
    this.kubelet = kubelet;
    this.operator = operator;
    this.ns = ns;
    this.cluster = cluster;
    this.outsiders = outsiders;
  }

  @Override
  public synchronized void inject(Fault fault) throws Exception {
    switch (fault.kind()) {
      case KILL -> {
        if (!killed.add(fault.target())) {
          throw new IllegalStateException(fault.target() + " is already down");
        }
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
        if (operatorDown) {
          throw new IllegalStateException("the operator is already down");
        }
        operator.stop();
        operatorDown = true;
      }
      case SCALE -> resize(Integer.parseInt(fault.target()));
      case DEFRAGMENT ->
          EtcdClusters.edit(
              operator.client,
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
      case KILL -> {
        if (killed.remove(fault.target())) {
          kubelet.restartContainer(fault.target());
        }
      }
      case FREEZE -> {
        LocalProcess p = frozen.remove(fault.index());
        if (p != null && p.isAlive()) {
          p.resume();
        }
      }
      case PARTITION -> pairs(fault.target()).forEach(this::heal);
      case OPERATOR_DOWN -> startOperator();
      case SCALE -> resize(3);
      default -> {
        // Instantaneous faults have nothing to heal.
      }
    }
  }

  @Override
  public synchronized void healAll() throws Exception {
    for (LocalProcess p : frozen.values()) {
      if (p.isAlive()) {
        p.resume();
      }
    }
    frozen.clear();
    cuts.clear();
    lab.healAll();
    for (String member : List.copyOf(killed)) {
      killed.remove(member);
      kubelet.restartContainer(member);
    }
    startOperator();
    resize(3);
  }

  private void startOperator() {
    if (operatorDown) {
      operator.start();
      operatorDown = false;
    }
  }

  private void resize(int size) {
    EtcdClusters.edit(operator.client, ns, cluster, s -> s.setSize(size));
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
