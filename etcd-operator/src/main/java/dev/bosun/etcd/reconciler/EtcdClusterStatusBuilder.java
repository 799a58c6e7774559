package dev.bosun.etcd.reconciler;

import dev.bosun.common.status.ConditionTable;
import dev.bosun.common.status.ConditionTypes;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanText;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.MemberNames;
import dev.bosun.etcd.plan.MemberResources;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Turns one observation and the step taken into the status: members with their role and health, and
 * the five conditions. Nothing in it changes while the cluster is idle (no raft indexes, no
 * timestamps beyond transitions), so an idle cluster causes no status writes.
 */
public final class EtcdClusterStatusBuilder {

  public static final String READY = ConditionTypes.READY;
  public static final String SCALING = "Scaling";
  public static final String UPGRADING = "Upgrading";
  public static final String QUORUM_LOST = "QuorumLost";
  public static final String DEGRADED = ConditionTypes.DEGRADED;
  public static final String DISASTER_RECOVERY = DisasterRecovery.CONDITION;

  /** Ready's and Degraded's reason while etcd's NOSPACE alarm is raised. */
  public static final String NO_SPACE = "NoSpace";

  /** How the status names a member etcd lists without a name (a learner that never started). */
  private static final String UNNAMED = "(unnamed)";

  private final Clock clock;

  private static boolean recoverFromNoSpace(EtcdCluster cluster) {
    var m = cluster.getSpec().getMaintenance();
    return m != null && Boolean.TRUE.equals(m.getRecoverFromNoSpace());
  }

  public EtcdClusterStatusBuilder(Clock clock) {
    this.clock = clock;
  }

  /**
   * The snapshot the cluster was restored from: the restore this round started ({@code
   * restoredNow}, null when none), else what the status already says, else (a new cluster, or one a
   * disaster recovery is restoring) the annotation its restored first member's Pod carries. The Pod
   * is created with it, so an operator that died before the status said so still records it.
   */
  static String restoredFrom(EtcdClusterStatus previous, String restoredNow, Collection<Pod> pods) {
    if (restoredNow != null) {
      return restoredNow;
    }
    boolean recovering = previous != null && previous.getRecoveringFrom() != null;
    String recorded = previous == null ? null : previous.getRestoredFrom();
    if (recorded != null && !recovering) {
      return recorded;
    }
    // A recovery reaches here only once the old members' Pods are gone: these are the new ones.
    return pods.stream()
        .filter(p -> p.getMetadata().getAnnotations() != null)
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .map(p -> p.getMetadata().getAnnotations().get(EtcdOperator.RESTORED_FROM_ANNOTATION))
        .filter(Objects::nonNull)
        .findFirst()
        .orElse(recorded);
  }

  /** The status after a reconcile that observed {@code view} and chose {@code step}. */
  public EtcdClusterStatus build(
      EtcdCluster cluster,
      ClusterRef ref,
      MemberAddressing addressing,
      EtcdView view,
      Map<String, MemberResources> resources,
      Step step,
      DesiredCondition recovery) {
    EtcdClusterStatus previous = cluster.getStatus();
    EtcdClusterStatus status = new EtcdClusterStatus();
    status.setObservedGeneration(cluster.getMetadata().getGeneration());
    if (previous != null) {
      status.setRestoredFrom(previous.getRestoredFrom());
      status.setClusterId(previous.getClusterId());
      status.setDefragmentation(previous.getDefragmentation());
    }
    status.setAlarms(
        view.alarms().isEmpty()
            ? (view.reachable() || previous == null ? null : previous.getAlarms())
            : alarmNames(view));
    String name = cluster.getMetadata().getName();
    List<ObservedMember> members = new ArrayList<>(view.members());
    members.sort(
        Comparator.comparing(
            (ObservedMember m) -> MemberNames.index(name, m.name()).orElse(Integer.MAX_VALUE)));
    writeMembers(status, previous, view, members, name, ref, addressing);
    status.setHealthyMembers(
        (int) view.members().stream().filter(m -> m.voter() && m.healthy()).count());
    status.setLeader(view.leader().map(ObservedMember::name).orElse(null));
    if (step instanceof Step.QuorumLost) {
      status.setQuorumLostSince(
          previous != null && previous.getQuorumLostSince() != null
              ? previous.getQuorumLostSince()
              : ZonedDateTime.now(clock).withNano(0));
    }
    Facts facts = facts(cluster, view, resources, step, members, recovery);
    status.setConditions(
        CONDITIONS.conditions(
            facts, previous == null ? null : previous.getConditions(), cluster, clock));
    return status;
  }

  /** What the conditions are decided from: one observation, the step chosen, the spec's goal. */
  private record Facts(
      Step step,
      boolean reachable,
      int size,
      String version,
      long voters,
      boolean learners,
      List<String> unhealthy,
      List<String> outdated,
      String leader,
      String noSpace,
      DesiredCondition recovery) {

    boolean converged() {
      return step instanceof Step.Converged;
    }

    boolean healthy() {
      return reachable && unhealthy.isEmpty();
    }

    boolean atSize() {
      return reachable && voters == size && !learners;
    }

    boolean quorumLost() {
      return step instanceof Step.QuorumLost;
    }

    boolean leaderless() {
      return step instanceof Step.NoLeader;
    }

    boolean unseen() {
      return step instanceof Step.MembersUnseen;
    }
  }

  private static Facts facts(
      EtcdCluster cluster,
      EtcdView view,
      Map<String, MemberResources> resources,
      Step step,
      List<ObservedMember> sortedMembers,
      DesiredCondition recovery) {
    String version = cluster.getSpec().getVersion();
    return new Facts(
        step,
        view.reachable(),
        cluster.getSpec().getSize(),
        version,
        view.members().stream().filter(ObservedMember::voter).count(),
        view.members().stream().anyMatch(ObservedMember::learner),
        sortedMembers.stream().filter(m -> !m.healthy()).map(ObservedMember::name).toList(),
        resources.values().stream()
            .filter(r -> r.pod() && !version.equals(r.version()))
            .map(MemberResources::name)
            .sorted()
            .toList(),
        view.leader().map(ObservedMember::name).orElse(null),
        view.noSpace() ? noSpaceMessage(cluster, view) : null,
        recovery);
  }

  private static final ConditionTable<Facts> CONDITIONS =
      ConditionTable.<Facts>builder()
          .row(READY, EtcdClusterStatusBuilder::ready)
          .row(SCALING, EtcdClusterStatusBuilder::scaling)
          .row(UPGRADING, EtcdClusterStatusBuilder::upgrading)
          .row(QUORUM_LOST, EtcdClusterStatusBuilder::quorumLost)
          .row(DEGRADED, EtcdClusterStatusBuilder::degraded)
          .row(DISASTER_RECOVERY, Facts::recovery)
          .build();

  private static DesiredCondition ready(Facts f) {
    if (f.noSpace() != null && f.converged()) {
      return DesiredCondition.isFalse(READY, NO_SPACE, f.noSpace());
    }
    if (f.converged() && f.healthy() && f.atSize()) {
      return DesiredCondition.isTrue(
          READY,
          "ClusterHealthy",
          HumanText.format("{} of {} members healthy, {} leads", f.size(), f.size(), f.leader()));
    }
    if (f.converged() && !f.healthy()) {
      return DesiredCondition.isFalse(
          READY,
          "MemberUnhealthy",
          "unhealthy: " + String.join(", ", f.unhealthy()) + "; quorum holds");
    }
    return DesiredCondition.isFalse(READY, f.step().reason(), f.step().message());
  }

  private static DesiredCondition scaling(Facts f) {
    if (!f.reachable()) {
      return DesiredCondition.of(
          SCALING, f.step() instanceof Step.Bootstrap, f.step().reason(), f.step().message());
    }
    String change = HumanText.format("from {} to {} voting members", f.voters(), f.size());
    if (f.voters() < f.size() || f.learners()) {
      return DesiredCondition.isTrue(SCALING, "ScalingUp", change);
    }
    if (f.voters() > f.size()) {
      return DesiredCondition.isTrue(SCALING, "ScalingDown", change);
    }
    return DesiredCondition.isFalse(
        SCALING, "AtSize", HumanText.format("{} voting members", f.size()));
  }

  private static DesiredCondition upgrading(Facts f) {
    if (f.outdated().isEmpty()) {
      return DesiredCondition.isFalse(
          UPGRADING, "UpToDate", HumanText.format("every member runs {}", f.version()));
    }
    return DesiredCondition.isTrue(
        UPGRADING,
        "RollingUpgrade",
        HumanText.format(
            "to {}, one member at a time, leader last; left: {}", f.version(), f.outdated()));
  }

  private static DesiredCondition quorumLost(Facts f) {
    if (f.quorumLost()) {
      return DesiredCondition.isTrue(QUORUM_LOST, "QuorumLost", f.step().message());
    }
    if (f.leaderless()) {
      // No leader, so no quorum, but nothing is lost: not the evidence recovery acts on.
      return DesiredCondition.isTrue(QUORUM_LOST, f.step().reason(), f.step().message());
    }
    if (f.unseen()) {
      // Not a quorum loss the operator could act on: it cannot see enough members to tell.
      return DesiredCondition.isUnknown(QUORUM_LOST, f.step().reason(), f.step().message());
    }
    return DesiredCondition.isFalse(QUORUM_LOST, "QuorumHeld", "a majority of voters is healthy");
  }

  private static DesiredCondition degraded(Facts f) {
    if (f.noSpace() != null && !f.quorumLost() && !f.unseen() && !f.leaderless()) {
      return DesiredCondition.isTrue(DEGRADED, NO_SPACE, f.noSpace());
    }
    if (f.leaderless()) {
      return DesiredCondition.isTrue(DEGRADED, Step.NoLeader.CAUSE, f.step().message());
    }
    if (f.unseen()) {
      return DesiredCondition.isTrue(DEGRADED, f.step().reason(), f.step().message());
    }
    if (f.quorumLost() || (f.reachable() && !f.unhealthy().isEmpty())) {
      return DesiredCondition.isTrue(
          DEGRADED,
          f.quorumLost() ? "QuorumLost" : "MemberUnhealthy",
          "unhealthy: "
              + f.unhealthy().stream()
                  .map(n -> n.isEmpty() ? UNNAMED : n)
                  .collect(Collectors.joining(", ")));
    }
    return DesiredCondition.isFalse(
        DEGRADED, f.reachable() ? "AllHealthy" : "Unknown", "every member answers");
  }

  private static String noSpaceMessage(EtcdCluster cluster, EtcdView view) {
    return HumanText.format(
        "etcd raised NOSPACE ({}): the database exceeded its quota and every write fails until it"
            + " is compacted, defragmented and the alarm disarmed{}",
        alarmNames(view),
        recoverFromNoSpace(cluster)
            ? "; the operator does that now (maintenance.recoverFromNoSpace)"
            : "; set spec.maintenance.recoverFromNoSpace to let the operator do it");
  }

  /** The alarms as the status lists them: {@code <member>:<type>}, the member's id if unnamed. */
  private static List<String> alarmNames(EtcdView view) {
    return view.alarms().stream()
        .map(
            a ->
                HumanText.format(
                    "{}:{}",
                    a.member().isEmpty() ? Long.toHexString(a.memberId()) : a.member(),
                    a.type()))
        .toList();
  }

  /**
   * The members as observed, or, while etcd cannot be reached, as last seen with nobody known to be
   * healthy; the version and cluster id with them.
   */
  private static void writeMembers(
      EtcdClusterStatus status,
      EtcdClusterStatus previous,
      EtcdView view,
      List<ObservedMember> members,
      String name,
      ClusterRef ref,
      MemberAddressing addressing) {
    if (view.reachable()) {
      List<Members> lines = new ArrayList<>();
      members.forEach(m -> lines.add(memberLine(m, view, name, ref, addressing)));
      status.setMembers(lines);
      status.setClusterId(Long.toHexString(view.clusterId()));
      status.setVersion(
          view.versions().values().stream()
              .filter(Objects::nonNull)
              .min(SupportedVersions.ORDER)
              .orElse(null));
    } else if (previous != null) {
      // Unreachable: keep what was last seen, but nobody is known to be healthy.
      status.setVersion(previous.getVersion());
      if (previous.getMembers() != null) {
        List<Members> stale = new ArrayList<>();
        previous.getMembers().forEach(p -> stale.add(staleLine(p)));
        status.setMembers(stale);
      }
    }
  }

  private static Members memberLine(
      ObservedMember m, EtcdView view, String name, ClusterRef ref, MemberAddressing addressing) {
    Members s = new Members();
    s.setName(m.name().isEmpty() ? UNNAMED : m.name());
    s.setId(m.hexId());
    s.setRole(
        m.learner()
            ? Members.Role.LEARNER
            : m.leader()
                ? Members.Role.LEADER
                : m.healthy() ? Members.Role.FOLLOWER : Members.Role.UNKNOWN);
    s.setHealthy(m.healthy());
    s.setVersion(view.versions().get(m.name()));
    if (MemberNames.isOurs(name, m.name())) {
      s.setPeerURL(addressing.peerUrl(ref, m.name()).toString());
      s.setClientURL(addressing.clientUrl(ref, m.name()).toString());
    }
    return s;
  }

  /** A member last seen, while etcd cannot be reached: nobody is known to be healthy. */
  private static Members staleLine(Members p) {
    Members s = new Members();
    s.setName(p.getName());
    s.setId(p.getId());
    s.setRole(Members.Role.UNKNOWN);
    s.setHealthy(false);
    s.setVersion(p.getVersion());
    s.setPeerURL(p.getPeerURL());
    s.setClientURL(p.getClientURL());
    return s;
  }

  /**
   * A status for a reconcile that could not proceed (InvalidSpec, ReconcileError): Ready=False with
   * that reason, the other conditions as they were.
   */
  public EtcdClusterStatus blocked(EtcdCluster cluster, String reason, String message) {
    EtcdClusterStatus previous = cluster.getStatus();
    EtcdClusterStatus status =
        previous == null ? new EtcdClusterStatus() : Serialization.clone(previous);
    status.setObservedGeneration(cluster.getMetadata().getGeneration());
    List<Condition> stored = previous == null ? null : previous.getConditions();
    List<DesiredCondition> conditions = new ArrayList<>();
    conditions.add(DesiredCondition.isFalse(READY, reason, message));
    for (String type : CONDITIONS.types().subList(1, CONDITIONS.types().size())) {
      conditions.add(
          Conditions.carried(
              stored, type, DesiredCondition.isFalse(type, reason, "not observed yet")));
    }
    status.setConditions(
        Conditions.merge(stored, conditions, Conditions.generationOf(cluster), clock));
    return status;
  }
}
