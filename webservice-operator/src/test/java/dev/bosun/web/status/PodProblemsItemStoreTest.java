package dev.bosun.web.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class PodProblemsItemStoreTest {

  private static Pod crashLooping() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("shop-1")
        .withNamespace("team")
        .addToLabels("app.kubernetes.io/instance", "shop")
        .addToAnnotations("note", "kept")
        .addNewManagedField()
        .withManager("kubelet")
        .endManagedField()
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("app")
        .withImage("registry.example.com/shop:1")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .addNewCondition()
        .withType("Ready")
        .withStatus("False")
        .endCondition()
        .addNewContainerStatus()
        .withName("app")
        .withImage("registry.example.com/shop:1")
        .withNewState()
        .withNewWaiting()
        .withReason("CrashLoopBackOff")
        .withMessage("back-off 10s restarting failed container")
        .endWaiting()
        .endState()
        .withNewLastState()
        .withNewTerminated()
        .withExitCode(3)
        .endTerminated()
        .endLastState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @Test
  void keepsWhatTheStatusReadsAndDropsTheRest() {
    PodProblemsItemStore store = new PodProblemsItemStore();
    store.put("team/shop-1", crashLooping());

    Pod kept = store.get("team/shop-1");
    assertThat(kept.getSpec()).isNull();
    assertThat(kept.getMetadata().getManagedFields()).isNull();
    assertThat(kept.getMetadata().getLabels()).containsEntry("app.kubernetes.io/instance", "shop");
    assertThat(kept.getMetadata().getAnnotations()).containsEntry("note", "kept");
    assertThat(kept.getStatus().getConditions()).isEmpty();
    assertThat(kept.getStatus().getPhase()).isNull();
    assertThat(WebServiceStatusAggregator.problemReasons(kept)).containsExactly("CrashLoopBackOff");
    assertThat(WebServiceStatusAggregator.podProblem(java.util.List.of(kept)))
        .hasValueSatisfying(
            p ->
                assertThat(p[1])
                    .isEqualTo(
                        "pod shop-1, container app: CrashLoopBackOff: back-off 10s restarting"
                            + " failed container (last exit code 3)"));
  }

  @Test
  void aPodWithoutStatusIsKept() {
    PodProblemsItemStore store = new PodProblemsItemStore();
    Pod pending = crashLooping();
    pending.setStatus(null);
    store.put("team/shop-1", pending);
    assertThat(store.get("team/shop-1").getStatus()).isNull();
    assertThat(WebServiceStatusAggregator.problemReasons(store.get("team/shop-1"))).isEmpty();
  }
}
