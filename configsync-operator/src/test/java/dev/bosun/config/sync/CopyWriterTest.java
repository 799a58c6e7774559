package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.List;
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
      assertThat(writer.carryOut(plan, null))
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
}
