package dev.bosun.config.monitor;

import dev.bosun.config.v1alpha1.ConfigMonitorStatus;
import dev.bosun.config.v1alpha1.configmonitorstatus.Workloads;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** How a rollout decision changes a monitor's status: the applied and the pending hash. Pure. */
public final class MonitorStatuses {

  private MonitorStatuses() {}

  /** The previous status at {@code generation}, conditions left to be merged afresh. */
  public static ConfigMonitorStatus copyOf(ConfigMonitorStatus previous, long generation) {
    ConfigMonitorStatus status = new ConfigMonitorStatus();
    status.setObservedGeneration(generation);
    status.setConfigHash(previous.getConfigHash());
    status.setPendingHash(previous.getPendingHash());
    status.setPendingSince(previous.getPendingSince());
    status.setLastRolloutTime(previous.getLastRolloutTime());
    status.setWorkloads(previous.getWorkloads());
    return status;
  }

  /**
   * Writes what a decision other than a roll means for the applied and the pending hash (a roll is
   * written by {@link #rolled}), and says how long the debounce window still runs, if it does.
   */
  public static Optional<Duration> recordWaiting(
      RolloutDecision decision, ConfigMonitorStatus status) {
    if (decision instanceof RolloutDecision.Baseline b) {
      status.setConfigHash(b.hash());
      status.setPendingHash(null);
      status.setPendingSince(null);
    } else if (decision instanceof RolloutDecision.Unchanged) {
      status.setPendingHash(null);
      status.setPendingSince(null);
    } else if (decision instanceof RolloutDecision.StartWaiting w) {
      status.setPendingHash(w.hash());
      status.setPendingSince(utc(w.since()));
      return Optional.of(w.debounce());
    } else if (decision instanceof RolloutDecision.KeepWaiting k) {
      return Optional.of(k.remaining());
    }
    return Optional.empty();
  }

  /** Records a roll to {@code hash} at {@code now} of the {@code rolled} workloads. */
  public static void rolled(
      ConfigMonitorStatus status, List<HasMetadata> rolled, String hash, Instant now) {
    Map<String, Workloads> byName = new LinkedHashMap<>();
    if (status.getWorkloads() != null) {
      status.getWorkloads().forEach(w -> byName.put(w.getKind() + "/" + w.getName(), w));
    }
    for (HasMetadata w : rolled) {
      Workloads entry = new Workloads();
      entry.setKind(w.getKind());
      entry.setName(w.getMetadata().getName());
      entry.setLastRolloutTime(utc(now));
      entry.setConfigHash(hash);
      byName.put(w.getKind() + "/" + w.getMetadata().getName(), entry);
    }
    status.setWorkloads(new ArrayList<>(byName.values()));
    status.setConfigHash(hash);
    status.setPendingHash(null);
    status.setPendingSince(null);
    status.setLastRolloutTime(utc(now));
  }

  /** An instant as the status stores it. */
  public static ZonedDateTime utc(Instant instant) {
    return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
  }
}
