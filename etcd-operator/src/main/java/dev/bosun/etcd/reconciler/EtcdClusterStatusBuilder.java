package dev.bosun.etcd.reconciler;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.etcd.EtcdView;
import dev.bosun.etcd.membership.ClusterRef;
import dev.bosun.etcd.membership.MemberAddressing;
import dev.bosun.etcd.membership.MemberNames;
import dev.bosun.etcd.membership.MemberResources;
import dev.bosun.etcd.membership.ObservedMember;
import dev.bosun.etcd.membership.Step;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.util.ArrayList;
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

  public static final String READY = "Ready";
  public static final String SCALING = "Scaling";
  public static final String UPGRADING = "Upgrading";
  public static final String QUORUM_LOST = "QuorumLost";
  public static final String DEGRADED = "Degraded";
  public static final String DISASTER_RECOVERY = DisasterRecovery.CONDITION;

  /** Ready's and Degraded's reason while etcd's NOSPACE alarm is raised. */
  public static final String NO_SPACE = "NoSpace";

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
  static String restoredFrom(
      EtcdClusterStatus previous,
      String restoredNow,
      java.util.Collection<io.fabric8.kubernetes.api.model.Pod> pods) {
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
            : view.alarms().stream().map(Object::toString).toList());
    String name = cluster.getMetadata().getName();
    int size = cluster.getSpec().getSize();
    String version = cluster.getSpec().getVersion();

    List<ObservedMember> members = new ArrayList<>(view.members());
    members.sort(
        Comparator.comparing(
            (ObservedMember m) -> MemberNames.index(name, m.name()).orElse(Integer.MAX_VALUE)));
    List<Members> list = new ArrayList<>();
    for (ObservedMember m : members) {
      Members s = new Members();
      s.setName(m.name().isEmpty() ? "(unnamed)" : m.name());
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
      list.add(s);
    }
    if (view.reachable()) {
      status.setMembers(list);
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
        for (Members p : previous.getMembers()) {
          Members s = new Members();
          s.setName(p.getName());
          s.setId(p.getId());
          s.setRole(Members.Role.UNKNOWN);
          s.setHealthy(false);
          s.setVersion(p.getVersion());
          s.setPeerURL(p.getPeerURL());
          s.setClientURL(p.getClientURL());
          stale.add(s);
        }
        status.setMembers(stale);
      }
    }
    long voters = view.members().stream().filter(ObservedMember::voter).count();
    long healthyVoters = view.members().stream().filter(m -> m.voter() && m.healthy()).count();
    status.setHealthyMembers((int) healthyVoters);
    status.setLeader(view.leader().map(ObservedMember::name).orElse(null));

    boolean quorumLost = step instanceof Step.QuorumLost;
    if (quorumLost) {
      status.setQuorumLostSince(
          previous != null && previous.getQuorumLostSince() != null
              ? previous.getQuorumLostSince()
              : ZonedDateTime.now(clock).withNano(0));
    }

    List<String> unhealthy =
        members.stream().filter(m -> !m.healthy()).map(ObservedMember::name).toList();
    List<String> outdated =
        resources.values().stream()
            .filter(r -> r.pod() && !version.equals(r.version()))
            .map(MemberResources::name)
            .sorted()
            .toList();
    boolean learners = view.members().stream().anyMatch(ObservedMember::learner);
    boolean atSize = view.reachable() && voters == size && !learners;
    boolean converged = step instanceof Step.Converged;
    boolean healthy = view.reachable() && unhealthy.isEmpty();

    List<DesiredCondition> conditions = new ArrayList<>();
    String noSpace =
        view.noSpace()
            ? "etcd raised NOSPACE ("
                + view.alarms().stream().map(Object::toString).collect(Collectors.joining(", "))
                + "): the database exceeded its quota and every write fails until it is compacted,"
                + " defragmented and the alarm disarmed"
                + (recoverFromNoSpace(cluster)
                    ? "; the operator does that now (maintenance.recoverFromNoSpace)"
                    : "; set spec.maintenance.recoverFromNoSpace to let the operator do it")
            : null;
    if (noSpace != null && converged) {
      conditions.add(DesiredCondition.isFalse(READY, NO_SPACE, noSpace));
    } else if (converged && healthy && atSize) {
      conditions.add(
          DesiredCondition.isTrue(
              READY,
              "ClusterHealthy",
              size + " of " + size + " members healthy, " + status.getLeader() + " leads"));
    } else if (converged && !healthy) {
      conditions.add(
          DesiredCondition.isFalse(
              READY,
              "MemberUnhealthy",
              "unhealthy: " + String.join(", ", unhealthy) + "; quorum holds"));
    } else {
      conditions.add(DesiredCondition.isFalse(READY, step.reason(), step.message()));
    }
    if (!view.reachable()) {
      conditions.add(
          DesiredCondition.of(
              SCALING, step instanceof Step.Bootstrap, step.reason(), step.message()));
    } else if (voters < size || learners) {
      conditions.add(
          DesiredCondition.isTrue(
              SCALING, "ScalingUp", "from " + voters + " to " + size + " voting members"));
    } else if (voters > size) {
      conditions.add(
          DesiredCondition.isTrue(
              SCALING, "ScalingDown", "from " + voters + " to " + size + " voting members"));
    } else {
      conditions.add(DesiredCondition.isFalse(SCALING, "AtSize", size + " voting members"));
    }
    if (outdated.isEmpty()) {
      conditions.add(
          DesiredCondition.isFalse(UPGRADING, "UpToDate", "every member runs " + version));
    } else {
      conditions.add(
          DesiredCondition.isTrue(
              UPGRADING,
              "RollingUpgrade",
              "to "
                  + version
                  + ", one member at a time, leader last; left: "
                  + String.join(", ", outdated)));
    }
    boolean unseen = step instanceof Step.MembersUnseen;
    boolean leaderless = step instanceof Step.NoLeader;
    if (quorumLost) {
      conditions.add(DesiredCondition.isTrue(QUORUM_LOST, "QuorumLost", step.message()));
    } else if (leaderless) {
      // No leader, so no quorum, but nothing is lost: not the evidence recovery acts on.
      conditions.add(DesiredCondition.isTrue(QUORUM_LOST, step.reason(), step.message()));
    } else if (unseen) {
      // Not a quorum loss the operator could act on: it cannot see enough members to tell.
      conditions.add(
          new DesiredCondition(
              QUORUM_LOST, DesiredCondition.UNKNOWN, step.reason(), step.message()));
    } else {
      conditions.add(
          DesiredCondition.isFalse(QUORUM_LOST, "QuorumHeld", "a majority of voters is healthy"));
    }
    if (noSpace != null && !quorumLost && !unseen && !leaderless) {
      conditions.add(DesiredCondition.isTrue(DEGRADED, NO_SPACE, noSpace));
    } else if (leaderless) {
      conditions.add(DesiredCondition.isTrue(DEGRADED, Step.NoLeader.CAUSE, step.message()));
    } else if (unseen) {
      conditions.add(DesiredCondition.isTrue(DEGRADED, step.reason(), step.message()));
    } else if (quorumLost || (view.reachable() && !unhealthy.isEmpty())) {
      conditions.add(
          DesiredCondition.isTrue(
              DEGRADED,
              quorumLost ? "QuorumLost" : "MemberUnhealthy",
              "unhealthy: "
                  + unhealthy.stream()
                      .map(n -> n.isEmpty() ? "(unnamed)" : n)
                      .collect(Collectors.joining(", "))));
    } else {
      conditions.add(
          DesiredCondition.isFalse(
              DEGRADED, view.reachable() ? "AllHealthy" : "Unknown", "every member answers"));
    }
    conditions.add(recovery);
    status.setConditions(
        Conditions.merge(
            previous == null ? null : previous.getConditions(),
            conditions,
            cluster.getMetadata().getGeneration(),
            clock));
    return status;
  }

  /**
   * A status for a reconcile that could not proceed (InvalidSpec, ReconcileError): Ready=False with
   * that reason, the other conditions as they were.
   */
  public EtcdClusterStatus blocked(EtcdCluster cluster, String reason, String message) {
    EtcdClusterStatus previous = cluster.getStatus();
    EtcdClusterStatus status =
        previous == null
            ? new EtcdClusterStatus()
            : io.fabric8.kubernetes.client.utils.Serialization.clone(previous);
    status.setObservedGeneration(cluster.getMetadata().getGeneration());
    List<DesiredCondition> conditions = new ArrayList<>();
    conditions.add(DesiredCondition.isFalse(READY, reason, message));
    for (String type : List.of(SCALING, UPGRADING, QUORUM_LOST, DEGRADED, DISASTER_RECOVERY)) {
      Conditions.find(previous == null ? null : previous.getConditions(), type)
          .ifPresentOrElse(
              c ->
                  conditions.add(
                      new DesiredCondition(type, c.getStatus(), c.getReason(), c.getMessage())),
              () -> conditions.add(DesiredCondition.isFalse(type, reason, "not observed yet")));
    }
    status.setConditions(
        Conditions.merge(
            previous == null ? null : previous.getConditions(),
            conditions,
            cluster.getMetadata().getGeneration(),
            clock));
    return status;
  }
}
