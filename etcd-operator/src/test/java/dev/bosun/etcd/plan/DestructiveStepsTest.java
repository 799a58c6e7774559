package dev.bosun.etcd.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Destructive steps are decided only on a linearizable member list. */
class DestructiveStepsTest {

  static final String V = "3.4.23";

  static ObservedMember voter(int i, boolean leader) {
    return new ObservedMember("c-" + i, 100 + i, false, true, leader, 1000);
  }

  static MemberResources running(int i) {
    return new MemberResources("c-" + i, true, true, V);
  }

  static Step plan(List<ObservedMember> members, int size) {
    Map<String, MemberResources> resources = new java.util.HashMap<>();
    for (int i = 0; i < 4; i++) {
      resources.put("c-" + i, running(i));
    }
    return MembershipPlanner.plan(
        new Observation("c", true, members, resources, Set.of(), true, size, V));
  }

  @Test
  void aStaleMemberAnsweringFirstNeverGetsTheNewestMembersPodDeleted() {
    // c-3 was just added as a learner; c-0 answered first from its own store, which lags behind
    // and does not list it yet, so c-3's Pod and volume look like leftovers of a former member.
    List<ObservedMember> stale = List.of(voter(0, false), voter(1, true), voter(2, false));
    Step planned = plan(stale, 4);
    assertThat(planned).isEqualTo(new Step.DeleteResources("c-3"));
    // The leader's list, read after a linearizable read, has it.
    List<ObservedMember> linearizable =
        List.of(
            voter(0, false),
            voter(1, true),
            voter(2, false),
            new ObservedMember("c-3", 103, true, true, false, 1000));
    // The plan on it promotes the learner instead: nothing is deleted.
    assertThat(DestructiveSteps.confirm(planned, plan(linearizable, 4)))
        .isEqualTo(new Step.Promote("c-3", 103));
  }

  @Test
  void aStaleListStillNamingARemovedMemberDoesNotRemoveItAgain() {
    // Scale-down 4 -> 3 already removed c-3; a stale list still names it, and the planner would
    // remove it again (by ID).
    List<ObservedMember> stale =
        List.of(voter(0, false), voter(1, true), voter(2, false), voter(3, false));
    Step planned = plan(stale, 3);
    assertThat(planned).isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.ScaleDown));
    // On the leader's list c-3 is gone: what is left is cleaning up its Pod, never a second
    // removal.
    List<ObservedMember> linearizable = List.of(voter(0, false), voter(1, true), voter(2, false));
    assertThat(DestructiveSteps.confirm(planned, plan(linearizable, 3)))
        .isEqualTo(new Step.DeleteResources("c-3"));
  }

  @Test
  void theSameStepOnTheLinearizableListIsCarriedOut() {
    // Scale-down 4 -> 3 with every list in agreement: c-3 is removed.
    List<ObservedMember> members =
        List.of(voter(0, false), voter(1, true), voter(2, false), voter(3, false));
    Step planned = plan(members, 3);
    assertThat(DestructiveSteps.confirm(planned, plan(members, 3)))
        .isEqualTo(planned)
        .isEqualTo(new Step.RemoveMember("c-3", 103, Step.RemovalCause.ScaleDown));
  }

  @Test
  void onlyRemovalsAndDeletionsNeedConfirming() {
    assertThat(DestructiveSteps.destructive(new Step.DeleteResources("c-3"))).isTrue();
    assertThat(
            DestructiveSteps.destructive(
                new Step.RemoveMember("c-3", 1, Step.RemovalCause.DataLost)))
        .isTrue();
    assertThat(DestructiveSteps.destructive(new Step.AddLearner("c-3"))).isFalse();
    assertThat(DestructiveSteps.destructive(new Step.RecreatePods(List.of("c-3")))).isFalse();
    // Only a destructive first plan is replaced by the plan on the linearizable list.
    Step add = new Step.AddLearner("c-4");
    assertThat(DestructiveSteps.confirm(add, new Step.Converged())).isSameAs(add);
    assertThat(DestructiveSteps.unconfirmed(new Step.DeleteResources("c-3")).reason())
        .isEqualTo("MemberListUnconfirmed");
  }
}
