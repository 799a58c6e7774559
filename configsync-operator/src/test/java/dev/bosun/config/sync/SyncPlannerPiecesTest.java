package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult.State;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyncPlannerPiecesTest {

  private static ConfigMap copy(String namespace, String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .build();
  }

  @Test
  void theAnnotationsNameTheSourceAndTheHashOfItsContent() {
    assertThat(SyncPlanner.annotations("shop", "app", "abc"))
        .containsExactly(
            Map.entry(ConfigSyncOperator.SOURCE_ANNOTATION, "shop/app"),
            Map.entry(ConfigSyncOperator.SOURCE_HASH_ANNOTATION, "abc"));
  }

  @Test
  void aCopyIsKeptOnlyUnderTheTargetNameInANamespaceThatIsStillADestination() {
    ConfigMap kept = copy("a", "app");
    ConfigMap refused = copy("b", "app");
    ConfigMap dropped = copy("c", "app");
    ConfigMap renamed = copy("a", "old-name");
    List<SyncPlan.Decision<ConfigMap>> decisions =
        List.of(
            new SyncPlan.UpToDate<>("a"),
            new SyncPlan.Refused<>("b", State.NOT_ALLOWED, "consent withdrawn"));
    assertThat(SyncPlanner.deletions(List.of(kept, refused, dropped, renamed), "app", decisions))
        .containsExactly(refused, dropped, renamed);
  }

  @Test
  void aWrittenCopyIsKept() {
    ConfigMap written = copy("a", "app");
    List<SyncPlan.Decision<ConfigMap>> decisions =
        List.of(new SyncPlan.Write<>("a", written, false));
    assertThat(SyncPlanner.deletions(List.of(written), "app", decisions)).isEmpty();
  }
}
