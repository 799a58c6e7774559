package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order of a rolling upgrade: replicas from the highest ordinal, the primary last. */
class RollingUpgradeTest {

  static StatefulSet sts(String revision) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName("db")
        .withGeneration(2L)
        .endMetadata()
        .withNewStatus()
        .withObservedGeneration(2L)
        .withUpdateRevision(revision)
        .endStatus()
        .build();
  }

  static Pod pod(String name, String revision, boolean ready) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels(RollingUpgrade.REVISION, revision)
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void replicasGoFirstFromTheHighestOrdinal() {
    var move =
        RollingUpgrade.next(
            sts("new"),
            List.of(pod("db-0", "old", true), pod("db-1", "old", true), pod("db-2", "old", true)),
            "db-0",
            true,
            List.of("db-1", "db-2"));
    assertThat(move.deletePod()).isEqualTo("db-2");
  }

  @Test
  void thePrimaryIsHandedOverBeforeItsPodGoes() {
    var move =
        RollingUpgrade.next(
            sts("new"),
            List.of(pod("db-0", "old", true), pod("db-1", "new", true), pod("db-2", "new", true)),
            "db-0",
            true,
            List.of("db-1", "db-2"));
    assertThat(move.deletePod()).isNull();
    assertThat(move.switchoverTo()).isEqualTo("db-1");
  }

  @Test
  void nothingMovesWhileAPodIsNotReadyOrAMemberUnhealthy() {
    List<Pod> pods =
        List.of(pod("db-0", "old", true), pod("db-1", "new", false), pod("db-2", "new", true));
    assertThat(RollingUpgrade.next(sts("new"), pods, "db-0", true, List.of("db-2")))
        .isEqualTo(RollingUpgrade.Move.NONE);
    List<Pod> ready =
        List.of(pod("db-0", "old", true), pod("db-1", "old", true), pod("db-2", "new", true));
    assertThat(RollingUpgrade.next(sts("new"), ready, "db-0", false, List.of("db-2")))
        .isEqualTo(RollingUpgrade.Move.NONE);
  }

  @Test
  void aLoneInstanceIsUpgradedInPlaceAndAnUpToDateClusterIsLeftAlone() {
    assertThat(
            RollingUpgrade.next(
                    sts("new"), List.of(pod("db-0", "old", true)), "db-0", true, List.of())
                .deletePod())
        .isEqualTo("db-0");
    assertThat(
            RollingUpgrade.next(
                sts("new"),
                List.of(pod("db-0", "new", true), pod("db-1", "new", true)),
                "db-0",
                true,
                List.of("db-1")))
        .isEqualTo(RollingUpgrade.Move.NONE);
  }
}
