package dev.bosun.etcd.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.plan.MembershipPlannerTest.Cluster;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** An EtcdCluster created again over the volumes an earlier one of its name kept. */
class KeptVolumesTest {

  /** A re-created cluster: nothing recorded, nothing answers. */
  private static Cluster recreated() {
    Cluster c = new Cluster();
    c.reachable = false;
    c.bootstrapped = false;
    return c;
  }

  @Test
  void volumesStampedWithOneClusterResumeIt() {
    Cluster c =
        recreated().kept("c-2", "abc", "m2").kept("c-0", "abc", "m0").kept("c-1", "abc", "m1");
    assertThat(c.plan(3))
        .isEqualTo(new Step.ResumeCluster(List.of("c-0", "c-1", "c-2"), "abc", List.of()));
    assertThat(c.plan(3).reason()).isEqualTo("ResumingCluster");
    assertThat(c.plan(3).message())
        .isEqualTo(
            "the kept volumes of c-0, c-1, c-2 hold etcd cluster abc: starting its members on them");
  }

  @Test
  void theSizeDoesNotChooseWhatIsResumed() {
    // All that was kept comes back; scaling to the spec's size is the next steps' work.
    Cluster c = recreated().kept("c-0", "abc", "m0").kept("c-3", "abc", "m3");
    assertThat(c.plan(5))
        .isEqualTo(new Step.ResumeCluster(List.of("c-0", "c-3"), "abc", List.of()));
    assertThat(c.plan(1))
        .isEqualTo(new Step.ResumeCluster(List.of("c-0", "c-3"), "abc", List.of()));
  }

  @Test
  void oneStampedVolumeResumesAsItsCluster() {
    assertThat(recreated().kept("c-0", "abc", "m0").plan(3))
        .isEqualTo(new Step.ResumeCluster(List.of("c-0"), "abc", List.of()));
  }

  @Test
  void volumesOfTwoClustersAreRefused() {
    Step step = recreated().kept("c-0", "abc", "m0").kept("c-1", "def", "m1").plan(3);
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(step.reason()).isEqualTo("VolumesOfDifferentClusters");
    assertThat(step.message()).contains("c-0: abc, c-1: def", "none is started");
    assertThat(step.changes()).isFalse();
  }

  @Test
  void anUnstampedVolumeBesideStampedOnesComesBackWithThem() {
    // A learner added right before the delete never answered, so it was never stamped: it gets its
    // Pod like any member's volume, and etcd's member list decides it once the others answer.
    Step step =
        recreated()
            .kept("c-0", "abc", "m0")
            .resources("c-3", false, true, "")
            .kept("c-2", "abc", "m2")
            .plan(3);
    assertThat(step)
        .isEqualTo(new Step.ResumeCluster(List.of("c-0", "c-2", "c-3"), "abc", List.of("c-3")));
    assertThat(step.message())
        .isEqualTo(
            "the kept volumes of c-0, c-2, c-3 hold etcd cluster abc: starting its members on them"
                + " (c-3 never answered before the delete: etcd's member list decides whether it"
                + " belongs)");
  }

  @Test
  void twoVolumesWithOneMembersIdentityAreRefused() {
    // A copied volume: both would start as member m1 and vote twice.
    Step step =
        recreated()
            .kept("c-0", "abc", "m0")
            .kept("c-1", "abc", "m1")
            .kept("c-2", "abc", "m1")
            .plan(3);
    assertThat(step.reason()).isEqualTo("VolumesShareAMember");
    assertThat(step.message()).contains("c-1 and c-2 both hold member m1 of etcd cluster abc");
    assertThat(step.changes()).isFalse();
  }

  @Test
  void differentClustersAreNamedBeforeUnstampedVolumes() {
    Step step =
        recreated()
            .kept("c-0", "abc", "m0")
            .kept("c-1", "def", "m1")
            .resources("c-2", false, true, "")
            .plan(3);
    assertThat(step.reason()).isEqualTo("VolumesOfDifferentClusters");
  }

  @Test
  void aClusterWithAPodLeftGetsTheOtherPodsBackAsBefore() {
    // Not every name is podless: the members' own Pods come back, as for any member.
    Cluster c = recreated().kept("c-1", "abc", "m1").kept("c-2", "abc", "m2");
    c.resources("c-0", true, true, MembershipPlannerTest.V);
    assertThat(c.plan(3)).isEqualTo(new Step.RecreatePods(List.of("c-1", "c-2")));
  }

  @Test
  void retainedVolumesAreNeverResumed() {
    Cluster c = recreated();
    c.retained.addAll(Set.of("c-0", "c-1", "c-2"));
    assertThat(c.plan(3)).isEqualTo(new Step.Bootstrap("c-3"));
  }

  @Test
  void aRecordedClusterIsNotResumedFromStamps() {
    // With an ID recorded, podless volumes are its members: their Pods come back.
    Cluster c = recreated().kept("c-0", "abc", "m0").kept("c-1", "def", "m1");
    c.bootstrapped = true;
    assertThat(c.plan(3)).isEqualTo(new Step.RecreatePods(List.of("c-0", "c-1")));
  }

  @Test
  void resumingIsNotDestructive() {
    assertThat(
            DestructiveSteps.destructive(new Step.ResumeCluster(List.of("c-0"), "abc", List.of())))
        .isFalse();
  }
}
