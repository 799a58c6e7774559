package dev.bosun.etcd.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.plan.MembershipPlannerTest.Cluster;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each piece of the planner on its own: it speaks up for its case and passes on the others. */
class MembershipPlannerPiecesTest {

  private static Observation observe(Cluster c, int size) {
    return new Observation(
        "c",
        c.reachable,
        c.members,
        c.resources,
        c.retained,
        c.bootstrapped,
        size,
        MembershipPlannerTest.V,
        c.now);
  }

  @Test
  void podsAreRecreatedForMembersWithOnlyAVolumeInMemberOrder() {
    Cluster c = new Cluster().voters(3).resources("c-2", false, true, MembershipPlannerTest.V);
    c.resources("c-1", false, true, MembershipPlannerTest.V);
    assertThat(MembershipPlanner.recreatePods(observe(c, 3)))
        .hasValue(new Step.RecreatePods(List.of("c-1", "c-2")));
    assertThat(MembershipPlanner.recreatePods(observe(new Cluster().voters(3), 3))).isEmpty();
  }

  @Test
  void aQuorumProblemIsNamedOnlyWithoutQuorum() {
    assertThat(MembershipPlanner.quorumProblem(observe(new Cluster().voters(3), 3))).isEmpty();
    Cluster leaderless = new Cluster().leaderless(0).leaderless(1).leaderless(2);
    assertThat(MembershipPlanner.quorumProblem(observe(leaderless, 3)))
        .hasValueSatisfying(s -> assertThat(s).isInstanceOf(Step.NoLeader.class));
  }

  @Test
  void aForeignMemberOrOneWithoutVolumeIsRemoved() {
    Cluster foreign = new Cluster().voters(3).foreign("other-0", 7);
    assertThat(MembershipPlanner.removeForeignOrLost(observe(foreign, 3)))
        .hasValueSatisfying(s -> assertThat(s.message()).contains("other-0"));
    Cluster lost = new Cluster().voters(3).noResources("c-2");
    assertThat(MembershipPlanner.removeForeignOrLost(observe(lost, 3)))
        .hasValueSatisfying(s -> assertThat(s.message()).contains("c-2"));
    assertThat(MembershipPlanner.removeForeignOrLost(observe(new Cluster().voters(3), 3)))
        .isEmpty();
  }

  @Test
  void resourcesOfANameEtcdDoesNotListAreDeletedLowestIndexFirst() {
    Cluster c =
        new Cluster()
            .voters(3)
            .resources("c-5", true, true, MembershipPlannerTest.V)
            .resources("c-4", false, true, MembershipPlannerTest.V);
    assertThat(MembershipPlanner.deleteLeftovers(observe(c, 3)))
        .hasValue(new Step.DeleteResources("c-4"));
    assertThat(MembershipPlanner.deleteLeftovers(observe(new Cluster().voters(3), 3))).isEmpty();
  }

  @Test
  void aLearnerIsFinishedAndWithoutOneNothingIsSaid() {
    Cluster c = new Cluster().voters(2).learner(2, true, 1000);
    Optional<Step> step = MembershipPlanner.finishLearner(observe(c, 3));
    assertThat(step).isPresent();
    assertThat(step.get()).isEqualTo(MembershipPlanner.plan(observe(c, 3)));
    assertThat(MembershipPlanner.finishLearner(observe(new Cluster().voters(3), 3))).isEmpty();
  }

  @Test
  void scalingAddsOrRemovesOneMemberOnlyWhenTheVotersDifferFromTheSize() {
    Cluster c = new Cluster().voters(3);
    assertThat(MembershipPlanner.scale(observe(c, 3))).isEmpty();
    assertThat(MembershipPlanner.scale(observe(c, 4))).hasValue(new Step.AddLearner("c-3"));
    assertThat(MembershipPlanner.scale(observe(c, 2)))
        .hasValueSatisfying(s -> assertThat(s).isEqualTo(MembershipPlanner.plan(observe(c, 2))));
  }
}
