package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CopyWriterTest {

  @Test
  void decisionsThatWriteNothingBecomeResultsInPlanOrderWithoutTheApi() {
    try (CopyWriter<ConfigMap> writer = new CopyWriter<>(ConfigMap.class)) {
      SyncPlan<ConfigMap> plan =
          new SyncPlan<>(
              List.of(
                  new SyncPlan.Refused<>("a", State.NOT_ALLOWED, "no consent"),
                  new SyncPlan.UpToDate<>("b")),
              List.of());
      assertThat(writer.carryOut(new ConfigMapSync(), plan, List.of(), null))
          .containsExactly(
              new DestinationResult("a", State.NOT_ALLOWED, null, "no consent"),
              new DestinationResult("b", State.SYNCED, null, "in sync"));
    }
  }

  @Test
  void closingStopsTheWriterThreads() {
    CopyWriter<ConfigMap> writer = new CopyWriter<>(ConfigMap.class);
    assertThat(writer.closed()).isFalse();
    writer.close();
    assertThat(writer.closed()).isTrue();
  }

  @Test
  void aCopyIsTheSyncsWhenItCarriesTheSyncsNameAndNamespaceLabels() {
    ConfigMapSync sync = new ConfigMapSync();
    sync.setMetadata(new ObjectMetaBuilder().withName("s").withNamespace("src").build());
    ConfigMap copy = new ConfigMap();
    copy.setMetadata(
        new ObjectMetaBuilder()
            .withLabels(
                Map.of(
                    ConfigSyncOperator.SYNC_NAME_LABEL,
                    "s",
                    ConfigSyncOperator.SYNC_NAMESPACE_LABEL,
                    "src"))
            .build());
    assertThat(CopyWriter.isCopyOf(sync, copy)).isTrue();

    copy.getMetadata().getLabels().put(ConfigSyncOperator.SYNC_NAMESPACE_LABEL, "elsewhere");
    assertThat(CopyWriter.isCopyOf(sync, copy)).isFalse();
    copy.getMetadata().setLabels(null);
    assertThat(CopyWriter.isCopyOf(sync, copy)).isFalse();
  }
}
