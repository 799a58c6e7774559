package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.reconciler.RecoveryPlanner.ForgetOldCluster;
import dev.bosun.etcd.reconciler.RecoveryPlanner.Input;
import dev.bosun.etcd.reconciler.RecoveryPlanner.RestoreFirstMember;
import dev.bosun.etcd.reconciler.RecoveryPlanner.RetainVolumes;
import dev.bosun.etcd.reconciler.RecoveryPlanner.StopPods;
import dev.bosun.etcd.reconciler.RecoveryPlanner.WaitForPods;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A recorded disaster recovery resumed by an operator restarted at each boundary: every state a
 * crash can leave has a next step, and none of them loses a volume or waits forever.
 */
class RecoveryPlannerTest {

  static final Set<String> ALL = Set.of("c-0", "c-1", "c-2");

  @Test
  void rightAfterTheIntentIsRecordedTheVolumesAreKeptBeforeAnyPodStops() {
    assertThat(RecoveryPlanner.plan(new Input(false, ALL, ALL, Set.of())))
        .isEqualTo(new RetainVolumes(List.of("c-0", "c-1", "c-2")));
  }

  @Test
  void killedWhileKeepingVolumesTheRestAreKeptOnRestart() {
    assertThat(RecoveryPlanner.plan(new Input(false, Set.of("c-2"), ALL, Set.of())))
        .isEqualTo(new RetainVolumes(List.of("c-2")));
  }

  @Test
  void withEveryVolumeKeptThePodsStop() {
    assertThat(RecoveryPlanner.plan(new Input(false, Set.of(), ALL, Set.of())))
        .isEqualTo(new StopPods(List.of("c-0", "c-1", "c-2")));
  }

  @Test
  void killedWhileStoppingPodsTheRestStopOnRestart() {
    assertThat(RecoveryPlanner.plan(new Input(false, Set.of(), Set.of("c-1"), Set.of("c-0"))))
        .isEqualTo(new StopPods(List.of("c-1")));
  }

  @Test
  void terminatingPodsAreWaitedFor() {
    RecoveryPlanner.RecoveryStep step =
        RecoveryPlanner.plan(new Input(false, Set.of(), Set.of(), Set.of("c-0", "c-2")));
    assertThat(step).isEqualTo(new WaitForPods(List.of("c-0", "c-2")));
    assertThat(step.message()).isEqualTo("waiting for the old Pods of c-0, c-2 to be gone");
  }

  @Test
  void withNothingOfTheOldClusterRunningItIsForgotten() {
    // The state today's main left behind when killed after stopping members: zero members and a
    // cluster ID, which the membership planner waits on forever. With the intent recorded the
    // recovery goes on instead.
    assertThat(RecoveryPlanner.plan(new Input(false, Set.of(), Set.of(), Set.of())))
        .isInstanceOf(ForgetOldCluster.class);
  }

  @Test
  void onceForgottenTheMembershipPlannerStartsTheRestoredMember() {
    // Whatever exists now is the new cluster's (the old volumes are retained): never stopped.
    assertThat(RecoveryPlanner.plan(new Input(true, Set.of("c-3"), Set.of("c-3"), Set.of())))
        .isInstanceOf(RestoreFirstMember.class);
  }

  @Test
  void everyStepSaysWhatItDoesInASentence() {
    assertThat(new RetainVolumes(List.of("c-0")).message())
        .isEqualTo("keeping the volumes of c-0 before their Pods stop");
    assertThat(new StopPods(List.of("c-0", "c-1")).message())
        .isEqualTo("stopping the old members c-0, c-1");
    assertThat(new ForgetOldCluster().message()).contains("every old member is stopped");
  }
}
