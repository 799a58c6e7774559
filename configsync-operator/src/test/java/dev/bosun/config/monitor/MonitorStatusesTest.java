package dev.bosun.config.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.config.v1alpha1.ConfigMonitorStatus;
import dev.bosun.config.v1alpha1.configmonitorstatus.Workloads;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class MonitorStatusesTest {

  private static final Instant T0 = Instant.parse("2025-01-01T10:00:00Z");

  private static Workloads workload(String kind, String name, String hash) {
    Workloads w = new Workloads();
    w.setKind(kind);
    w.setName(name);
    w.setConfigHash(hash);
    return w;
  }

  @Test
  void aCopyKeepsTheHashesAndWorkloadsAtTheNewGeneration() {
    ConfigMonitorStatus previous = new ConfigMonitorStatus();
    previous.setObservedGeneration(1L);
    previous.setConfigHash("h1");
    previous.setPendingHash("h2");
    previous.setWorkloads(List.of(workload("Deployment", "web", "h1")));
    ConfigMonitorStatus copy = MonitorStatuses.copyOf(previous, 4);
    assertThat(copy.getObservedGeneration()).isEqualTo(4L);
    assertThat(List.of(copy.getConfigHash(), copy.getPendingHash())).containsExactly("h1", "h2");
    assertThat(copy.getWorkloads()).isEqualTo(previous.getWorkloads());
  }

  @Test
  void aRollRecordsEachRolledWorkloadKeepsTheOthersAndClearsThePendingChange() {
    ConfigMonitorStatus status = new ConfigMonitorStatus();
    status.setConfigHash("h1");
    status.setPendingHash("h2");
    status.setWorkloads(
        List.of(workload("Deployment", "web", "h1"), workload("StatefulSet", "db", "h1")));
    List<HasMetadata> rolled =
        List.of(
            new DeploymentBuilder().withNewMetadata().withName("web").endMetadata().build(),
            new StatefulSetBuilder().withNewMetadata().withName("cache").endMetadata().build());
    MonitorStatuses.rolled(status, rolled, "h2", T0);
    assertThat(status.getConfigHash()).isEqualTo("h2");
    assertThat(status.getPendingHash()).isNull();
    assertThat(status.getPendingSince()).isNull();
    assertThat(status.getLastRolloutTime()).isEqualTo(ZonedDateTime.parse("2025-01-01T10:00:00Z"));
    assertThat(status.getWorkloads())
        .extracting(w -> w.getKind() + "/" + w.getName() + "@" + w.getConfigHash())
        .containsExactly("Deployment/web@h2", "StatefulSet/db@h1", "StatefulSet/cache@h2");
  }
}
