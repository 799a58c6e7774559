package dev.bosun.etcd.plan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Chooses the one next step that brings an etcd cluster closer to its spec, or none. A pure
 * function of an {@link Observation}; every change it proposes has passed the {@link QuorumGuard}.
 *
 * <p>The order matters: give members their Pods back first (never destructive), then stop at lost
 * quorum, then remove what does not belong, then finish a started learner (or one added right
 * before the operator stopped), then scale one member at a time, then upgrade one member at a time
 * with the leader last.
 */
public final class MembershipPlanner {

  /** A learner is promoted once its applied index is within this fraction of the leader's. */
  static final double CAUGHT_UP = 0.9;

  /** How long a learner's Pod may stay without running before the learner is given up. */
  public static final Duration LEARNER_START_DEADLINE = Duration.ofMinutes(5);

  private MembershipPlanner() {}

  public static Step plan(Observation o) {
    if (!o.reachable()) {
      return unreachable(o);
    }
    return recreatePods(o)
        .or(() -> quorumProblem(o))
        .or(() -> removeForeignOrLost(o))
        .or(() -> deleteLeftovers(o))
        .or(() -> finishLearner(o))
        .or(() -> scale(o))
        .orElseGet(() -> upgrade(o));
  }

  /** Members whose volume is there but whose Pod is not get their Pods back, first of all. */
  static Optional<Step> recreatePods(Observation o) {
    List<String> podless =
        o.members().stream()
            .map(ObservedMember::name)
            .filter(n -> MemberNames.isOurs(o.cluster(), n))
            .filter(n -> o.resources().containsKey(n))
            .filter(n -> o.resources().get(n).volume() && !o.resources().get(n).pod())
            .sorted(byIndex(o.cluster()))
            .toList();
    return podless.isEmpty() ? Optional.empty() : Optional.of(new Step.RecreatePods(podless));
  }

  /** Without quorum nothing changes; what the members say decides what it is called. */
  static Optional<Step> quorumProblem(Observation o) {
    List<ObservedMember> members = o.members();
    if (QuorumGuard.hasQuorum(members)) {
      return Optional.empty();
    }
    QuorumEvidence evidence = QuorumEvidence.of(o.cluster(), members, o.resources());
    // Only evidence (members saying they have no leader, or down by Kubernetes' account) makes
    // it a quorum loss; members the operator merely cannot reach may be perfectly healthy.
    return Optional.of(
        switch (evidence.verdict()) {
          case LOST -> new Step.QuorumLost(evidence.message());
          case LEADERLESS -> new Step.NoLeader(evidence.message());
          case HELD, UNSEEN -> new Step.MembersUnseen(evidence.message());
        });
  }

  /** A member that is not ours, or whose data is gone, is removed (in member order). */
  static Optional<Step> removeForeignOrLost(Observation o) {
    List<ObservedMember> members = o.members();
    for (ObservedMember m : sorted(o.cluster(), members)) {
      if (!MemberNames.isOurs(o.cluster(), m.name())) {
        return Optional.of(remove(members, m, Step.RemovalCause.UnexpectedMember));
      }
      MemberResources r = o.resources().get(m.name());
      // A volume being deleted counts as lost even while its Pod still runs on it: the data
      // goes with the Pod, so the member is replaced rather than left to vanish later.
      if (!resumable(o, m) && (r == null || !r.volume())) {
        return Optional.of(remove(members, m, Step.RemovalCause.DataLost));
      }
    }
    return Optional.empty();
  }

  /** The Pod and volume of a name etcd does not list, lowest index first. */
  static Optional<Step> deleteLeftovers(Observation o) {
    Set<String> memberNames = memberNames(o);
    return o.resources().values().stream()
        // Objects already being deleted are on their way out: nothing to do but wait.
        .filter(r -> r.pod() || r.volume())
        .map(MemberResources::name)
        .filter(n -> !memberNames.contains(n))
        .min(byIndex(o.cluster()))
        .map(Step.DeleteResources::new);
  }

  /** A learner is given up when stuck, resumed when it may be, or else promoted. */
  static Optional<Step> finishLearner(Observation o) {
    List<ObservedMember> members = o.members();
    Optional<ObservedMember> learner = members.stream().filter(ObservedMember::learner).findFirst();
    if (learner.isEmpty()) {
      return Optional.empty();
    }
    Optional<Step.RemovalCause> stuck = stuckLearner(o, learner.get(), QuorumGuard.voters(members));
    if (stuck.isPresent()) {
      return Optional.of(remove(members, learner.get(), stuck.get()));
    }
    if (resumable(o, learner.get())) {
      return Optional.of(new Step.ResumeLearner(learner.get().name()));
    }
    return Optional.of(promote(members, learner.get()));
  }

  /** One member more or fewer while the voters differ from the size. */
  static Optional<Step> scale(Observation o) {
    List<ObservedMember> members = o.members();
    long voters = QuorumGuard.voters(members);
    if (voters < o.size()) {
      if (!QuorumGuard.canAddLearner(members)) {
        return Optional.of(
            new Step.Wait(
                "WaitingForHealthyMembers",
                "a member is added only while every voting member is healthy"));
      }
      Set<String> used = new HashSet<>(memberNames(o));
      used.addAll(o.resources().keySet());
      used.addAll(o.retained());
      return Optional.of(new Step.AddLearner(MemberNames.next(o.cluster(), used)));
    }
    if (voters > o.size()) {
      return Optional.of(scaleDown(o.cluster(), members));
    }
    return Optional.empty();
  }

  private static Set<String> memberNames(Observation o) {
    return o.members().stream().map(ObservedMember::name).collect(Collectors.toSet());
  }

  /**
   * A learner that is not healthy (not started, or not answering): given up when the size no longer
   * needs it, or once its Pod has not run for {@link #LEARNER_START_DEADLINE} (unschedulable, image
   * not pulled, crashing). Removing a learner never changes the quorum.
   */
  private static Optional<Step.RemovalCause> stuckLearner(
      Observation o, ObservedMember learner, long voters) {
    if (learner.healthy()) {
      return Optional.empty();
    }
    if (voters >= o.size()) {
      return Optional.of(Step.RemovalCause.LearnerNotNeeded);
    }
    MemberResources r = o.resources().get(learner.name());
    if (r != null
        && !r.running()
        && r.podCreated() != null
        && !r.podCreated().plus(LEARNER_START_DEADLINE).isAfter(o.now())) {
      return Optional.of(Step.RemovalCause.LearnerNeverStarted);
    }
    return Optional.empty();
  }

  /**
   * A learner of ours that never started and of which Kubernetes holds nothing, not even a
   * terminating object or a retained volume: the operator stopped between its MemberAdd and its
   * volume. Giving it a new volume and Pod finishes that add; it has no data a new volume could
   * lose, and etcd keeps its ID for it. A started learner without a volume lost data instead.
   */
  private static boolean resumable(Observation o, ObservedMember m) {
    return m.learner()
        && !m.started()
        && MemberNames.isOurs(o.cluster(), m.name())
        && !o.resources().containsKey(m.name())
        && !o.retained().contains(m.name());
  }

  private static Step unreachable(Observation o) {
    if (!o.bootstrapped() && o.resources().isEmpty()) {
      Set<String> used = new HashSet<>(o.retained());
      return new Step.Bootstrap(MemberNames.next(o.cluster(), used));
    }
    if (!o.bootstrapped()) {
      Optional<Step> resumed = resumeBootstrap(o);
      if (resumed.isPresent()) {
        return resumed.get();
      }
    }
    List<String> podless =
        o.resources().values().stream()
            .filter(r -> r.volume() && !r.pod())
            .map(MemberResources::name)
            .sorted(byIndex(o.cluster()))
            .toList();
    if (!podless.isEmpty()) {
      return new Step.RecreatePods(podless);
    }
    if (o.bootstrapped() && !o.resources().isEmpty()) {
      List<String> names = o.resources().keySet().stream().sorted(byIndex(o.cluster())).toList();
      if (o.resources().values().stream().allMatch(MemberResources::down)) {
        return new Step.QuorumLost(
            "no member answers and Kubernetes reports every member down (Pod or volume gone, or"
                + " etcd not running): "
                + String.join(", ", names)
                + "; quorum is lost");
      }
      return new Step.MembersUnseen(
          "no member answers the operator although Kubernetes reports some running ("
              + String.join(", ", names)
              + "): the operator cannot see them; nothing is changed while it cannot");
    }
    return new Step.Wait(
        "MembersUnreachable", "no member answers yet; waiting for the member Pods to start");
  }

  /**
   * A cluster with no recorded ID whose every name has a volume and no Pod: either a bootstrap (or
   * restore) interrupted between the first member's volume and its Pod, or an EtcdCluster created
   * again over the volumes an earlier one of the same name kept. Volumes stamped with the cluster
   * their data belongs to say which: they are resumed as that cluster ({@link #keptVolumes}).
   *
   * <p>Unstamped, the cluster never answered, so there are no peers to join: the one member is
   * started again as a new first member (with the restore, when one was asked for), never recreated
   * as a member joining an existing cluster, which would crash-loop without peers. Repeating is
   * safe: on a volume that already holds data etcd ignores the initial-cluster flags, and a restore
   * installs nothing over data. Anything else is left for a person to look at.
   */
  private static Optional<Step> resumeBootstrap(Observation o) {
    if (o.resources().values().stream().anyMatch(r -> r.pod() || !r.volume())) {
      return Optional.empty();
    }
    List<String> names = o.resources().keySet().stream().sorted(byIndex(o.cluster())).toList();
    if (o.resources().values().stream().anyMatch(r -> r.origin() != null)) {
      return Optional.of(keptVolumes(o, names));
    }
    if (names.size() == 1) {
      return Optional.of(new Step.Bootstrap(names.get(0)));
    }
    return Optional.of(
        new Step.Wait(
            "UnstartedClusterHasVolumes",
            "the cluster never started here, yet volumes of "
                + String.join(", ", names)
                + " exist without Pods and carry no stamp of the cluster their data belongs to:"
                + " the operator does not guess which one to start from; delete the volumes that"
                + " should not be there"));
  }

  /**
   * Kept volumes are resumed as the cluster their stamps name when those agree on one cluster ID
   * and each names its own member. Anything else is refused with what is wrong and nothing is
   * started or deleted: volumes of two clusters never formed one, and two volumes with one member's
   * identity (a copied volume) would both vote as that member. An unstamped volume beside them (its
   * member never answered: a learner added just before the delete) gets its Pod back with them, as
   * any member's volume does; etcd's member list decides whether it belongs once they answer (a
   * name etcd does not list is a leftover).
   */
  static Step keptVolumes(Observation o, List<String> names) {
    Map<String, VolumeOrigin> origins = new TreeMap<>(byIndex(o.cluster()));
    List<String> unstamped = new ArrayList<>();
    for (String name : names) {
      VolumeOrigin origin = o.resources().get(name).origin();
      if (origin == null) {
        unstamped.add(name);
      } else {
        origins.put(name, origin);
      }
    }
    Set<String> clusters = new TreeSet<>();
    origins.values().forEach(v -> clusters.add(v.clusterId()));
    if (clusters.size() > 1) {
      return new Step.Wait(
          "VolumesOfDifferentClusters",
          "the kept volumes hold different etcd clusters ("
              + byName(origins)
              + "): they never formed one cluster, so none is started; delete the volumes that do"
              + " not belong to this one");
    }
    String clusterId = clusters.iterator().next();
    Map<String, List<String>> byMember = new TreeMap<>();
    origins.forEach(
        (name, v) -> byMember.computeIfAbsent(v.memberId(), k -> new ArrayList<>()).add(name));
    for (Map.Entry<String, List<String>> e : byMember.entrySet()) {
      if (e.getValue().size() > 1) {
        return new Step.Wait(
            "VolumesShareAMember",
            "the volumes of "
                + String.join(" and ", e.getValue())
                + " both hold member "
                + e.getKey()
                + " of etcd cluster "
                + clusterId
                + " (one is a copy): two members with one identity would corrupt the cluster, so"
                + " none is started; delete the copy");
      }
    }
    return new Step.ResumeCluster(names, clusterId, unstamped);
  }

  /** {@code c-0: 1a2b, c-1: 3c4d}: each volume with the cluster it holds. */
  private static String byName(Map<String, VolumeOrigin> origins) {
    List<String> parts = new ArrayList<>();
    origins.forEach((name, v) -> parts.add(name + ": " + v.clusterId()));
    return String.join(", ", parts);
  }

  private static Step remove(
      List<ObservedMember> members, ObservedMember m, Step.RemovalCause cause) {
    if (m.leader() && QuorumGuard.voters(members) > 1) {
      Optional<ObservedMember> to =
          members.stream().filter(x -> x.voter() && x.healthy() && x.id() != m.id()).findFirst();
      if (to.isPresent()) {
        return new Step.MoveLeader(
            m.name(), m.id(), to.get().name(), to.get().id(), "removing " + m.name());
      }
    }
    if (!QuorumGuard.canRemove(members, m)) {
      return new Step.Wait(
          "RemovalBlocked",
          "removing "
              + (m.name().isEmpty() ? m.hexId() : m.name())
              + " would leave fewer healthy voting members than quorum; waiting");
    }
    return new Step.RemoveMember(m.name(), m.id(), cause);
  }

  private static Step promote(List<ObservedMember> members, ObservedMember learner) {
    long leaderIndex =
        members.stream()
            .filter(ObservedMember::leader)
            .mapToLong(ObservedMember::raftIndex)
            .max()
            .orElse(0);
    boolean caughtUp = learner.raftIndex() >= (long) (leaderIndex * CAUGHT_UP);
    if (caughtUp && QuorumGuard.canPromote(members, learner)) {
      return new Step.Promote(learner.name(), learner.id());
    }
    return new Step.Wait(
        "LearnerCatchingUp",
        "learner " + learner.name() + " is catching up with the leader before its promotion");
  }

  private static Step scaleDown(String cluster, List<ObservedMember> members) {
    // An unhealthy voter goes first (it serves nobody), otherwise the newest one.
    Comparator<ObservedMember> order =
        Comparator.comparing((ObservedMember m) -> m.healthy())
            .thenComparing(
                (ObservedMember m) -> MemberNames.index(cluster, m.name()).orElse(-1),
                Comparator.reverseOrder());
    ObservedMember victim =
        members.stream().filter(ObservedMember::voter).sorted(order).findFirst().orElseThrow();
    return remove(members, victim, Step.RemovalCause.ScaleDown);
  }

  private static Step upgrade(Observation o) {
    List<ObservedMember> outdated =
        sorted(o.cluster(), o.members()).stream()
            .filter(m -> !o.version().equals(o.resources().get(m.name()).version()))
            .toList();
    if (outdated.isEmpty()) {
      return new Step.Converged();
    }
    Optional<ObservedMember> follower = outdated.stream().filter(m -> !m.leader()).findFirst();
    ObservedMember next = follower.orElse(outdated.get(0));
    if (next.leader() && QuorumGuard.voters(o.members()) > 1) {
      Optional<ObservedMember> to =
          o.members().stream()
              .filter(m -> m.voter() && m.healthy() && m.id() != next.id())
              .findFirst();
      if (to.isPresent()) {
        return new Step.MoveLeader(
            next.name(), next.id(), to.get().name(), to.get().id(), "upgrading " + next.name());
      }
    }
    if (!QuorumGuard.canRestart(o.members(), next)) {
      return new Step.Wait(
          "UpgradeWaitingForHealth",
          "the next member is upgraded once every voting member is healthy");
    }
    return new Step.Upgrade(next.name(), o.resources().get(next.name()).version(), o.version());
  }

  private static List<ObservedMember> sorted(String cluster, List<ObservedMember> members) {
    List<ObservedMember> copy = new ArrayList<>(members);
    copy.sort(
        Comparator.comparing(
            (ObservedMember m) -> MemberNames.index(cluster, m.name()).orElse(Integer.MAX_VALUE)));
    return copy;
  }

  private static Comparator<String> byIndex(String cluster) {
    return Comparator.comparing(
            (String n) -> MemberNames.index(cluster, n).orElse(Integer.MAX_VALUE))
        .thenComparing(Comparator.naturalOrder());
  }
}
