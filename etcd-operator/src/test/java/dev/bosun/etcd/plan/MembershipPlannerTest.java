package dev.bosun.etcd.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MembershipPlannerTest {

  static final String V = "3.5.17";

  /** Builds observations: members c-0..c-n with Pods and volumes unless told otherwise. */
  static final class Cluster {
    final List<ObservedMember> members = new ArrayList<>();
    final Map<String, MemberResources> resources = new LinkedHashMap<>();
    final java.util.Set<String> retained = new java.util.HashSet<>();
    boolean reachable = true;
    boolean bootstrapped = true;
    Instant now = Instant.parse("2026-11-23T10:00:00Z");

    /** A voter that answered the operator and said it has no leader. */
    Cluster leaderless(int index) {
      members.add(
          new ObservedMember("c-" + index, 100 + index, false, false, false, 900, true, true));
      resources.put("c-" + index, new MemberResources("c-" + index, true, true, V));
      return this;
    }

    /** Kubernetes reports the member's etcd container not running (since its Pod was created). */
    Cluster notRunning(int index, Instant podCreated) {
      resources.put(
          "c-" + index, new MemberResources("c-" + index, true, true, V, false, podCreated));
      return this;
    }

    Cluster voter(int index, boolean healthy, boolean leader) {
      members.add(new ObservedMember("c-" + index, 100 + index, false, healthy, leader, 1000));
      resources.put("c-" + index, new MemberResources("c-" + index, true, true, V));
      return this;
    }

    Cluster voters(int n) {
      for (int i = 0; i < n; i++) {
        voter(i, true, i == 0);
      }
      return this;
    }

    Cluster learner(int index, boolean healthy, long raftIndex) {
      members.add(new ObservedMember("c-" + index, 100 + index, true, healthy, false, raftIndex));
      resources.put("c-" + index, new MemberResources("c-" + index, true, true, V));
      return this;
    }

    Cluster resources(String name, boolean pod, boolean volume, String version) {
      resources.put(name, new MemberResources(name, pod, volume, version));
      return this;
    }

    /** A volume without a Pod, stamped with the cluster and member its data belongs to. */
    Cluster kept(String name, String clusterId, String memberId) {
      resources.put(
          name,
          new MemberResources(
              name, false, true, "", false, null, new VolumeOrigin(clusterId, memberId)));
      return this;
    }

    Cluster noResources(String name) {
      resources.remove(name);
      return this;
    }

    Cluster foreign(String name, long id) {
      members.add(new ObservedMember(name, id, false, true, false, 1000));
      return this;
    }

    Step plan(int size) {
      return plan(size, V);
    }

    Step plan(int size, String version) {
      return MembershipPlanner.plan(
          new Observation(
              "c", reachable, members, resources, retained, bootstrapped, size, version, now));
    }
  }

  @Test
  void aNewClusterStartsWithOneMember() {
    Cluster c = new Cluster();
    c.reachable = false;
    c.bootstrapped = false;
    assertThat(c.plan(3)).isEqualTo(new Step.Bootstrap("c-0"));
  }

  @Test
  void aNewClusterNeverReusesARetainedVolumeName() {
    Cluster c = new Cluster();
    c.reachable = false;
    c.bootstrapped = false;
    c.retained.add("c-4");
    assertThat(c.plan(3)).isEqualTo(new Step.Bootstrap("c-5"));
  }

  @Test
  void anUnreachableStartingClusterWaits() {
    Cluster c = new Cluster().resources("c-0", true, true, V);
    c.reachable = false;
    c.bootstrapped = false;
    assertThat(c.plan(3)).isInstanceOf(Step.Wait.class);
    assertThat(c.plan(3).reason()).isEqualTo("MembersUnreachable");
  }

  @Test
  void anUnreachableClusterGetsThePodsOfItsVolumesBack() {
    Cluster c =
        new Cluster()
            .resources("c-0", false, true, V)
            .resources("c-1", true, true, V)
            .resources("c-2", false, true, V);
    c.reachable = false;
    assertThat(c.plan(3)).isEqualTo(new Step.RecreatePods(List.of("c-0", "c-2")));
  }

  @Test
  void aBootstrapKilledBetweenVolumeAndPodStartsItsFirstMemberAgainAsNew() {
    // Recreating it as a member of an existing cluster would crash-loop: it has no peers.
    Cluster c = new Cluster().resources("c-0", false, true, V);
    c.reachable = false;
    c.bootstrapped = false;
    assertThat(c.plan(3)).isEqualTo(new Step.Bootstrap("c-0"));
  }

  @Test
  void aRestoreKilledBetweenVolumeAndPodRestoresAgainOnTheSameMember() {
    // After a disaster recovery the old volumes are retained; c-3 is the restored first member.
    Cluster c = new Cluster().resources("c-3", false, true, V);
    c.retained.addAll(Set.of("c-0", "c-1", "c-2"));
    c.reachable = false;
    c.bootstrapped = false;
    assertThat(c.plan(3)).isEqualTo(new Step.Bootstrap("c-3"));
  }

  @Test
  void anUnstartedClusterWithMoreThanOneVolumeIsNotGuessedAt() {
    Cluster c = new Cluster().resources("c-0", false, true, V).resources("c-1", false, true, V);
    c.reachable = false;
    c.bootstrapped = false;
    assertThat(c.plan(3)).isInstanceOf(Step.Wait.class);
    assertThat(c.plan(3).reason()).isEqualTo("UnstartedClusterHasVolumes");
    assertThat(c.plan(3).message()).contains("c-0, c-1", "does not guess");
  }

  @Test
  void aBootstrappedClusterWithoutAnythingIsNotBootstrappedAgain() {
    Cluster c = new Cluster();
    c.reachable = false;
    assertThat(c.plan(3)).isInstanceOf(Step.Wait.class);
  }

  @Test
  void scaleUpAddsOneLearnerWithTheNextIndex() {
    assertThat(new Cluster().voters(3).plan(5)).isEqualTo(new Step.AddLearner("c-3"));
  }

  @Test
  void scaleUpSkipsIndexesOfRetainedVolumes() {
    Cluster c = new Cluster().voters(3);
    c.retained.add("c-7");
    assertThat(c.plan(4)).isEqualTo(new Step.AddLearner("c-8"));
  }

  @Test
  void scaleUpWaitsWhileAVoterIsDown() {
    Cluster c = new Cluster().voter(0, true, true).voter(1, true, false).voter(2, false, false);
    assertThat(c.plan(5)).isInstanceOf(Step.Wait.class);
    assertThat(c.plan(5).reason()).isEqualTo("WaitingForHealthyMembers");
  }

  @Test
  void aCaughtUpLearnerIsPromoted() {
    Cluster c = new Cluster().voters(3).learner(3, true, 950);
    assertThat(c.plan(5)).isEqualTo(new Step.Promote("c-3", 103));
  }

  @Test
  void aLaggingOrSickLearnerIsWaitedFor() {
    assertThat(new Cluster().voters(3).learner(3, true, 10).plan(5).reason())
        .isEqualTo("LearnerCatchingUp");
    assertThat(new Cluster().voters(3).learner(3, false, 1000).plan(5).reason())
        .isEqualTo("LearnerCatchingUp");
  }

  @Test
  void aLearnerIsFinishedBeforeAnyScaleDown() {
    // The spec went back to 3 while c-3 was a learner: promote it, then scale down normally.
    Cluster c = new Cluster().voters(3).learner(3, true, 1000);
    assertThat(c.plan(3)).isEqualTo(new Step.Promote("c-3", 103));
  }

  @Test
  void scaleDownRemovesTheNewestFollower() {
    assertThat(new Cluster().voters(5).plan(3))
        .isEqualTo(new Step.RemoveMember("c-4", 104, Step.RemovalCause.ScaleDown));
  }

  @Test
  void scaleDownRemovesAnUnhealthyVoterFirst() {
    Cluster c =
        new Cluster()
            .voter(0, true, true)
            .voter(1, false, false)
            .voter(2, true, false)
            .voter(3, true, false)
            .voter(4, true, false);
    assertThat(c.plan(3)).isEqualTo(new Step.RemoveMember("c-1", 101, Step.RemovalCause.ScaleDown));
  }

  @Test
  void scaleDownMovesLeadershipAwayFirst() {
    Cluster c = new Cluster().voter(0, true, false).voter(1, true, false).voter(2, true, true);
    Step step = c.plan(2);
    assertThat(step).isInstanceOf(Step.MoveLeader.class);
    Step.MoveLeader move = (Step.MoveLeader) step;
    assertThat(move.from()).isEqualTo("c-2");
    assertThat(move.to()).isEqualTo("c-0");
  }

  @Test
  void aMemberWhosePodIsGoneComesBackOnItsVolume() {
    Cluster c = new Cluster().voters(3).resources("c-1", false, true, V);
    assertThat(c.plan(3)).isEqualTo(new Step.RecreatePods(List.of("c-1")));
  }

  @Test
  void podsComeBackEvenWithoutQuorum() {
    Cluster c =
        new Cluster()
            .voter(0, true, false)
            .voter(1, false, false)
            .voter(2, false, false)
            .resources("c-1", false, true, V)
            .resources("c-2", false, true, V);
    assertThat(c.plan(3)).isEqualTo(new Step.RecreatePods(List.of("c-1", "c-2")));
  }

  @Test
  void quorumLostMeansNothingIsRemovedOrReplaced() {
    // c-0 says it has no leader, c-1's etcd does not run, c-2's data is gone: evidence, not a view.
    Cluster c = new Cluster().leaderless(0).voter(1, false, false).voter(2, false, false);
    c.notRunning(1, c.now.minusSeconds(60)).noResources("c-2");
    Step step = c.plan(5);
    assertThat(step).isInstanceOf(Step.QuorumLost.class);
    assertThat(step.message()).contains("0 of 3", "no leader: c-0", "c-1, c-2");
    assertThat(c.plan(1)).isInstanceOf(Step.QuorumLost.class);
  }

  @Test
  void membersTheOperatorCannotReachAreNoEvidenceOfLostQuorum() {
    // The operator is cut off from c-1 and c-2, whose Pods run; c-0 still names a leader.
    // (etcd lists members in ID order, not by name: the message names them in index order)
    Cluster cut = new Cluster().voter(0, true, false).voter(2, false, false).voter(1, false, false);
    Step step = cut.plan(3);
    assertThat(step).isInstanceOf(Step.MembersUnseen.class);
    assertThat(step.reason()).isEqualTo("MembersUnreachable");
    assertThat(step.message()).contains("cannot reach c-1, c-2", "nothing is changed");
    assertThat(step.changes()).isFalse();
    // Even when the one it sees says it has no leader: the others may have elected one.
    Cluster paused = new Cluster().leaderless(0).voter(1, false, false).voter(2, false, false);
    assertThat(paused.plan(3)).isInstanceOf(Step.MembersUnseen.class);
    // One member gone leaves c-0 (running on its data) and c-1 (unseen): still a possible
    // majority, so still no evidence.
    paused.noResources("c-2");
    assertThat(paused.plan(5)).isInstanceOf(Step.MembersUnseen.class);
    // Only when Kubernetes says a majority is gone is it a loss.
    paused.notRunning(1, paused.now);
    assertThat(paused.plan(5)).isInstanceOf(Step.QuorumLost.class);
  }

  @Test
  void aMajorityRunningOnItsDataWithoutALeaderIsReportedAndNeverALoss() {
    // A peer certificate or a NetworkPolicy fault: every member answers, none has a leader.
    Cluster c = new Cluster().leaderless(0).leaderless(1).leaderless(2);
    Step step = c.plan(3);
    assertThat(step).isInstanceOf(Step.NoLeader.class);
    assertThat(step.changes()).isFalse();
    assertThat(step.reason()).isEqualTo("NoLeader");
    assertThat(step.message())
        .contains("reporting no leader: c-0, c-1, c-2", "cannot reach each other")
        .contains("peer TLS", "NetworkPolicy", "clocks")
        .contains("Nothing is removed, replaced or restored");
    // Two answering without a leader and one the operator cannot reach: still a possible majority.
    Cluster two = new Cluster().leaderless(0).leaderless(1).voter(2, false, false);
    assertThat(two.plan(3)).isInstanceOf(Step.NoLeader.class);
    // Even a scale request or a lost volume on the third changes nothing.
    two.noResources("c-2");
    assertThat(two.plan(5)).isInstanceOf(Step.NoLeader.class);
  }

  @Test
  void aLeaderlessMemberWhosePodIsGoingCountsAsDown() {
    Cluster c = new Cluster().leaderless(0).leaderless(1).leaderless(2);
    c.resources("c-1", false, true, V).resources("c-2", true, false, V);
    QuorumEvidence e = QuorumEvidence.of("c", c.members, c.resources);
    assertThat(e.down()).containsExactly("c-1", "c-2");
    assertThat(e.verdict()).isEqualTo(QuorumEvidence.Verdict.LOST);
  }

  @Test
  void quorumEvidenceWeighsEveryVoter() {
    Cluster c =
        new Cluster()
            .voter(0, true, true)
            .leaderless(1)
            .voter(2, false, false)
            .voter(3, false, false);
    c.notRunning(2, c.now).foreign("x", 999);
    QuorumEvidence e = QuorumEvidence.of("c", c.members, c.resources);
    assertThat(e.voters()).isEqualTo(5);
    assertThat(e.healthy()).isEqualTo(2);
    assertThat(e.leaderless()).containsExactly("c-1");
    assertThat(e.down()).containsExactly("c-2");
    assertThat(e.unseen()).containsExactly("c-3");
    // 2 healthy + 1 leaderless + 1 unseen could still be 3 of 5: not known to be lost.
    assertThat(e.verdict()).isEqualTo(QuorumEvidence.Verdict.UNSEEN);
    // c-3 down too: the three still running on their data could still be 3 of 5.
    c.notRunning(3, c.now);
    assertThat(QuorumEvidence.of("c", c.members, c.resources).verdict())
        .isEqualTo(QuorumEvidence.Verdict.LEADERLESS);
    // c-1 down as well: only two of five could be left, a loss on evidence.
    c.notRunning(1, c.now);
    assertThat(QuorumEvidence.of("c", c.members, c.resources).verdict())
        .isEqualTo(QuorumEvidence.Verdict.LOST);
    assertThat(QuorumEvidence.of("c", new Cluster().voters(3).members, Map.of()).verdict())
        .isEqualTo(QuorumEvidence.Verdict.HELD);
  }

  @Test
  void anUnreachableBootstrappedClusterIsLostOnlyWhenKubernetesSaysEveryMemberIsDown() {
    Cluster c = new Cluster().resources("c-0", true, true, V).resources("c-1", true, true, V);
    c.reachable = false;
    assertThat(c.plan(2)).isInstanceOf(Step.MembersUnseen.class);
    c.notRunning(0, c.now).notRunning(1, c.now);
    assertThat(c.plan(2)).isInstanceOf(Step.QuorumLost.class);
  }

  @Test
  void aLearnerThatNeverStartedIsRemovedWhenTheSizeGoesBack() {
    Cluster c = new Cluster().voters(3).learner(3, false, 0);
    c.notRunning(3, c.now.minusSeconds(10));
    // Still wanted: waited for (within its deadline).
    assertThat(c.plan(4).reason()).isEqualTo("LearnerCatchingUp");
    Step back = c.plan(3);
    assertThat(back)
        .isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.LearnerNotNeeded));
    assertThat(back.reason()).isEqualTo("RemovingUnstartedLearner");
  }

  @Test
  void aLearnerWhosePodDoesNotRunPastTheDeadlineIsRemovedWithAReason() {
    Cluster c = new Cluster().voters(3).learner(3, false, 0);
    c.notRunning(3, c.now.minus(MembershipPlanner.LEARNER_START_DEADLINE).minusSeconds(1));
    Step step = c.plan(4);
    assertThat(step)
        .isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.LearnerNeverStarted));
    assertThat(step.reason()).isEqualTo("LearnerNeverStarted");
    assertThat(step.message()).contains("has not run for 5 minutes");
    // A learner whose Pod runs is never given up by the deadline: it is catching up.
    Cluster running = new Cluster().voters(3).learner(3, false, 0);
    running.resources.put(
        "c-3", new MemberResources("c-3", true, true, V, true, c.now.minus(Duration.ofHours(1))));
    assertThat(running.plan(4).reason()).isEqualTo("LearnerCatchingUp");
  }

  /** A learner etcd lists that never started; Kubernetes holds nothing of it. */
  static Cluster addedLearner(Cluster c, int index) {
    c.members.add(
        new ObservedMember("c-" + index, 100 + index, true, false, false, 0, false, false));
    return c;
  }

  @Test
  void aLearnerAddedRightBeforeTheOperatorStoppedGetsItsVolumeAndPod() {
    // A replacement of c-2: removed, its objects gone, c-3 added to etcd, then the operator died.
    Cluster c = addedLearner(new Cluster().voters(2), 3);
    Step step = c.plan(3);
    assertThat(step).isEqualTo(new Step.ResumeLearner("c-3"));
    assertThat(step.reason()).isEqualTo("ResumingLearner");
    assertThat(step.message())
        .isEqualTo(
            "creating the volume and Pod of learner c-3, which was added to etcd before the"
                + " operator stopped and never started");
  }

  @Test
  void aLearnerAddedRightBeforeTheOperatorStoppedIsRemovedWhenNoLongerNeeded() {
    Cluster c = addedLearner(new Cluster().voters(3), 3);
    assertThat(c.plan(3))
        .isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.LearnerNotNeeded));
  }

  @Test
  void aLearnerThatStartedAndLostEverythingIsReplacedNotResumed() {
    // It has data raft counts on: a new, empty volume under its ID is not a resume.
    Cluster started = new Cluster().voters(2);
    started.members.add(new ObservedMember("c-3", 103, true, false, false, 0));
    assertThat(started.plan(3))
        .isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.DataLost));
    // Something of the name is still there (terminating, or retained): not resumed either.
    Cluster terminating = addedLearner(new Cluster().voters(2), 3);
    terminating.resources("c-3", false, false, "");
    assertThat(terminating.plan(3))
        .isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.DataLost));
    Cluster retained = addedLearner(new Cluster().voters(2), 3);
    retained.retained.add("c-3");
    assertThat(retained.plan(3))
        .isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.DataLost));
  }

  @Test
  void aMemberWhoseDataIsGoneIsRemovedSoItCanBeReplaced() {
    Cluster c = new Cluster().voter(0, true, true).voter(1, true, false).voter(2, false, false);
    c.noResources("c-2");
    assertThat(c.plan(3)).isEqualTo(new Step.RemoveMember("c-2", 102, Step.RemovalCause.DataLost));
    // Once removed, a learner with a fresh name replaces it.
    Cluster after = new Cluster().voter(0, true, true).voter(1, true, false);
    after.retained.clear();
    assertThat(after.plan(3)).isEqualTo(new Step.AddLearner("c-2"));
  }

  @Test
  void aMemberWhoseVolumeIsBeingDeletedUnderItsRunningPodIsReplacedToo() {
    Cluster c = new Cluster().voters(3).resources("c-1", true, false, V);
    assertThat(c.plan(3)).isEqualTo(new Step.RemoveMember("c-1", 101, Step.RemovalCause.DataLost));
  }

  @Test
  void anUnexpectedMemberIsRemovedButOnlyWithQuorumToSpare() {
    Cluster c = new Cluster().voters(3).foreign("intruder", 999);
    assertThat(c.plan(3))
        .isEqualTo(new Step.RemoveMember("intruder", 999, Step.RemovalCause.UnexpectedMember));
    // 2 healthy of 3 ours + a healthy intruder = 3 of 4: removing the intruder leaves 2 of 3.
    Cluster tight =
        new Cluster()
            .voter(0, true, true)
            .voter(1, false, false)
            .voter(2, false, false)
            .foreign("intruder", 999);
    assertThat(tight.plan(3).changes()).isFalse();
    tight.notRunning(1, tight.now).notRunning(2, tight.now);
    assertThat(tight.plan(3)).isInstanceOf(Step.QuorumLost.class);
  }

  @Test
  void aRemovalThatWouldLoseQuorumIsBlocked() {
    // 4 voters, 2 dead (one of them lost its data): 2 of 4 is no quorum -> QuorumLost;
    // 5 voters, 2 dead: removing a healthy unexpected member would leave 2 of 4.
    Cluster c =
        new Cluster()
            .voter(0, true, true)
            .voter(1, true, false)
            .voter(2, false, false)
            .voter(3, false, false)
            .foreign("x", 999);
    assertThat(c.plan(4).reason()).isEqualTo("RemovalBlocked");
  }

  @Test
  void leftoverPodsOfRemovedMembersAreDeleted() {
    Cluster c = new Cluster().voters(3).resources("c-3", true, true, V);
    assertThat(c.plan(3)).isEqualTo(new Step.DeleteResources("c-3"));
  }

  @Test
  void upgradesFollowersFirstOneAtATimeAndTheLeaderLast() {
    Cluster c = new Cluster().voters(3);
    c.members.replaceAll(m -> m);
    for (String n : List.of("c-0", "c-1", "c-2")) {
      c.resources(n, true, true, "3.5.16");
    }
    assertThat(c.plan(3)).isEqualTo(new Step.Upgrade("c-1", "3.5.16", V));
    c.resources("c-1", true, true, V);
    assertThat(c.plan(3)).isEqualTo(new Step.Upgrade("c-2", "3.5.16", V));
    c.resources("c-2", true, true, V);
    Step last = c.plan(3);
    assertThat(last).isInstanceOf(Step.MoveLeader.class);
    assertThat(((Step.MoveLeader) last).from()).isEqualTo("c-0");
  }

  @Test
  void theFormerLeaderIsUpgradedOnceItIsAFollower() {
    Cluster c = new Cluster().voter(0, true, false).voter(1, true, true).voter(2, true, false);
    c.resources("c-0", true, true, "3.5.16");
    assertThat(c.plan(3)).isEqualTo(new Step.Upgrade("c-0", "3.5.16", V));
  }

  @Test
  void anUpgradeWaitsForAHealthyCluster() {
    Cluster c = new Cluster().voter(0, true, true).voter(1, true, false).voter(2, false, false);
    c.resources("c-1", true, true, "3.5.16");
    assertThat(c.plan(3).reason()).isEqualTo("UpgradeWaitingForHealth");
  }

  @Test
  void aSingleMemberIsUpgradedInPlace() {
    Cluster c = new Cluster().voter(0, true, true).resources("c-0", true, true, "3.5.16");
    assertThat(c.plan(1)).isEqualTo(new Step.Upgrade("c-0", "3.5.16", V));
  }

  @Test
  void aConvergedClusterNeedsNothing() {
    assertThat(new Cluster().voters(3).plan(3)).isEqualTo(new Step.Converged());
    assertThat(new Cluster().voters(3).plan(3).changes()).isFalse();
  }

  @Test
  void aDegradedButQuorateClusterOfTheRightSizeIsLeftAlone() {
    Cluster c = new Cluster().voter(0, true, true).voter(1, true, false).voter(2, false, false);
    assertThat(c.plan(3)).isEqualTo(new Step.Converged());
  }

  @Test
  void memberNames() {
    assertThat(MemberNames.index("c", "c-12")).hasValue(12);
    assertThat(MemberNames.index("c", "c-012")).isEmpty();
    assertThat(MemberNames.index("c", "other-1")).isEmpty();
    assertThat(MemberNames.index("my-c", "my-c-0")).hasValue(0);
    assertThat(MemberNames.next("c", Set.of())).isEqualTo("c-0");
    assertThat(MemberNames.next("c", Set.of("c-0", "c-5", "x-9"))).isEqualTo("c-6");
  }
}
