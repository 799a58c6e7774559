package dev.bosun.etcd.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class QuorumGuardTest {

  static ObservedMember voter(int id, boolean healthy) {
    return new ObservedMember("c-" + id, id, false, healthy, false, 100);
  }

  static ObservedMember learner(int id, boolean healthy) {
    return new ObservedMember("c-" + id, id, true, healthy, false, 100);
  }

  @Test
  void quorumIsAMajority() {
    assertThat(QuorumGuard.quorum(1)).isEqualTo(1);
    assertThat(QuorumGuard.quorum(2)).isEqualTo(2);
    assertThat(QuorumGuard.quorum(3)).isEqualTo(2);
    assertThat(QuorumGuard.quorum(4)).isEqualTo(3);
    assertThat(QuorumGuard.quorum(5)).isEqualTo(3);
  }

  @Test
  void learnersDoNotCountTowardsQuorum() {
    assertThat(QuorumGuard.hasQuorum(List.of(voter(1, true), learner(2, true), voter(3, false))))
        .isFalse();
    assertThat(QuorumGuard.hasQuorum(List.of(learner(1, true)))).isFalse();
    assertThat(QuorumGuard.hasQuorum(List.of(voter(1, true), voter(2, true), voter(3, false))))
        .isTrue();
  }

  @Test
  void removingAHealthyVoterFromThreeWithOneDownWouldLoseQuorum() {
    var members = List.of(voter(1, true), voter(2, true), voter(3, false));
    assertThat(QuorumGuard.canRemove(members, members.get(0))).isFalse();
    // Removing the dead one leaves 2 of 2 healthy.
    assertThat(QuorumGuard.canRemove(members, members.get(2))).isTrue();
  }

  @Test
  void removingFromAHealthyClusterIsAllowedDownToOne() {
    var three = List.of(voter(1, true), voter(2, true), voter(3, true));
    assertThat(QuorumGuard.canRemove(three, three.get(2))).isTrue();
    var one = List.of(voter(1, true));
    assertThat(QuorumGuard.canRemove(one, one.get(0))).isFalse();
  }

  @Test
  void nothingIsRemovedWithoutQuorumNotEvenALearner() {
    var members = List.of(voter(1, true), voter(2, false), voter(3, false), learner(4, true));
    assertThat(QuorumGuard.canRemove(members, members.get(3))).isFalse();
    assertThat(QuorumGuard.canRemove(members, members.get(1))).isFalse();
  }

  @Test
  void aLearnerIsPromotedOnlyWhenHealthyAndTheLargerQuorumHolds() {
    var healthy = List.of(voter(1, true), voter(2, true), learner(3, true));
    assertThat(QuorumGuard.canPromote(healthy, healthy.get(2))).isTrue();
    var sickLearner = List.of(voter(1, true), voter(2, true), learner(3, false));
    assertThat(QuorumGuard.canPromote(sickLearner, sickLearner.get(2))).isFalse();
    // 2 voters, one down: no quorum at all, so no promotion either.
    var down = List.of(voter(1, true), voter(2, false), learner(3, true));
    assertThat(QuorumGuard.canPromote(down, down.get(2))).isFalse();
    // 4 voters, 3 healthy: promoting a healthy learner makes 4 of 5 healthy: fine.
    var four =
        List.of(voter(1, true), voter(2, true), voter(3, true), voter(4, false), learner(5, true));
    assertThat(QuorumGuard.canPromote(four, four.get(4))).isTrue();
    assertThat(QuorumGuard.canPromote(four, four.get(0))).as("not a learner").isFalse();
  }

  @Test
  void learnersAreAddedOnlyWhenEveryVoterIsHealthy() {
    assertThat(QuorumGuard.canAddLearner(List.of(voter(1, true), voter(2, true), voter(3, true))))
        .isTrue();
    assertThat(QuorumGuard.canAddLearner(List.of(voter(1, true), voter(2, true), voter(3, false))))
        .isFalse();
  }

  @Test
  void aRestartNeedsEveryVoterHealthyAndTheRestAQuorum() {
    var three = List.of(voter(1, true), voter(2, true), voter(3, true));
    assertThat(QuorumGuard.canRestart(three, three.get(0))).isTrue();
    var degraded = List.of(voter(1, true), voter(2, true), voter(3, false));
    assertThat(QuorumGuard.canRestart(degraded, degraded.get(0))).isFalse();
    var two = List.of(voter(1, true), voter(2, true));
    assertThat(QuorumGuard.canRestart(two, two.get(0))).as("1 of 2 is no quorum").isFalse();
    var one = List.of(voter(1, true));
    assertThat(QuorumGuard.canRestart(one, one.get(0))).as("size 1 accepts an outage").isTrue();
  }
}
