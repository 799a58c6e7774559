package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.e2e.WorkloadPods.Incarnation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadPodsTest {

  @Test
  void countsEveryContainersRestarts() {
    assertThat(WorkloadPods.of(List.of(pod("db-0", "u1", 1, 2))))
        .containsExactly(Map.entry("db-0", new Incarnation("u1", 3)));
  }

  @Test
  void aPodReplacedRestartedOrGoneIsNamedAndAnUntouchedOneIsNot() {
    Map<String, Incarnation> before =
        WorkloadPods.of(
            List.of(pod("a", "u1", 0), pod("b", "u2", 0), pod("c", "u3", 1), pod("d", "u4", 0)));
    Map<String, Incarnation> after =
        WorkloadPods.of(List.of(pod("a", "u1", 0), pod("b", "u9", 0), pod("c", "u3", 2)));

    assertThat(WorkloadPods.restartedOrReplaced(before, after)).containsExactly("b", "c", "d");
  }

  private static Pod pod(String name, String uid, int... restarts) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withUid(uid).endMetadata();
    var status = b.withNewStatus();
    for (int i = 0; i < restarts.length; i++) {
      status
          .addNewContainerStatus()
          .withName("c" + i)
          .withRestartCount(restarts[i])
          .endContainerStatus();
    }
    return status.endStatus().build();
  }
}
