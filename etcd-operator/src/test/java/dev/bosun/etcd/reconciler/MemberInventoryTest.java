package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.plan.MemberResources;
import dev.bosun.etcd.plan.MembershipPlanner;
import dev.bosun.etcd.plan.Observation;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.Step;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MemberInventoryTest {

  static final String CREATED = "2026-11-27T10:00:00Z";

  static Pod pod(String name, boolean terminating) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withCreationTimestamp(CREATED)
        .withDeletionTimestamp(terminating ? CREATED : null)
        .endMetadata()
        .build();
  }

  static PersistentVolumeClaim volume(String member, boolean terminating) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withName("data-" + member)
        .withDeletionTimestamp(terminating ? CREATED : null)
        .endMetadata()
        .build();
  }

  /** c-0 and c-1 run; c-2 was removed and its Pod and volume are still terminating. */
  static MemberInventory replacingTheLast() {
    return new MemberInventory(
        Map.of("c-0", pod("c-0", false), "c-1", pod("c-1", false), "c-2", pod("c-2", true)),
        Map.of(
            "c-0", volume("c-0", false),
            "c-1", volume("c-1", false),
            "c-2", volume("c-2", true)),
        Set.of(),
        false);
  }

  @Test
  void aMemberWhosePodAndVolumeAreTerminatingHasNeitherButKeepsItsName() {
    Map<String, MemberResources> resources = replacingTheLast().resources();

    assertThat(resources).containsKey("c-2");
    assertThat(resources.get("c-2").pod()).isFalse();
    assertThat(resources.get("c-2").volume()).isFalse();
  }

  @Test
  void theReplacementIsNotGivenTheNameOfAPodStillTerminating() {
    // Under the old name the new member's volume would be the terminating one, and its Pod could
    // not be created until the old Pod is gone: the learner would be added, then removed as lost.
    List<ObservedMember> members =
        List.of(
            new ObservedMember("c-0", 100, false, true, true, 1000),
            new ObservedMember("c-1", 101, false, true, false, 1000));
    Step step =
        MembershipPlanner.plan(
            new Observation(
                "c", true, members, replacingTheLast().resources(), Set.of(), true, 3, "3.4.23"));

    assertThat(step).isEqualTo(new Step.AddLearner("c-3"));
  }
}
