package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sentence a disaster recovery shows while old member Pods are still there. */
class RecoveryWaitTest {

  private static Pod pod(String name, String deletedAt) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withDeletionTimestamp(deletedAt)
        .endMetadata()
        .build();
  }

  @Test
  void namesEachPodLeftAndWhetherItIsGoing() {
    String message =
        EtcdClusterReconciler.waitingForOldMembers(
            "s3://b/ns/dr/x.db", List.of(pod("dr-1", null), pod("dr-2", "2026-11-24T16:00:00Z")));

    assertThat(message)
        .startsWith("disaster recovery from s3://b/ns/dr/x.db: waiting for the old member Pods")
        .endsWith("dr-1 (not deleted), dr-2 (terminating since 2026-11-24T16:00:00Z)");
  }
}
