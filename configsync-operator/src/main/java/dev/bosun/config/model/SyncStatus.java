package dev.bosun.config.model;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * The status of a sync, whichever kind it is; {@link SyncStatusMapper} turns it into the kind's
 * generated status type.
 *
 * @param observedGeneration the spec generation the status describes
 * @param sourceResourceVersion the source version copied, or null without a source
 * @param syncedCount destinations holding an up-to-date copy
 * @param destinations one result per destination namespace
 * @param conditions Ready and Degraded
 */
public record SyncStatus(
    Long observedGeneration,
    String sourceResourceVersion,
    Integer syncedCount,
    List<DestinationResult> destinations,
    List<Condition> conditions) {

  /** The status for these results, counting the synced destinations. */
  public static SyncStatus of(
      long generation,
      String sourceResourceVersion,
      List<DestinationResult> destinations,
      List<Condition> conditions) {
    int synced =
        (int)
            destinations.stream().filter(d -> d.state() == DestinationResult.State.SYNCED).count();
    return new SyncStatus(generation, sourceResourceVersion, synced, destinations, conditions);
  }
}
