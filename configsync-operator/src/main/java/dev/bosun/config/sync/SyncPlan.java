package dev.bosun.config.sync;

import dev.bosun.config.model.DestinationResult;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;

/**
 * What to do for one sync: a decision per destination namespace, and the copies to remove.
 *
 * @param decisions one per destination, in namespace order
 * @param deletions this sync's copies in namespaces that are no longer destinations
 */
public record SyncPlan<R extends HasMetadata>(List<Decision<R>> decisions, List<R> deletions) {

  /** The decision for one destination. */
  public sealed interface Decision<R> permits Write, UpToDate, Refused {
    String namespace();
  }

  /**
   * Write the copy. {@code create} is true when this sync has no copy there yet: the writer must
   * then make sure no object of that name exists, because Bosun never overwrites what it does not
   * own.
   */
  public record Write<R>(String namespace, R copy, boolean create) implements Decision<R> {}

  /** The copy there already holds the source's content. */
  public record UpToDate<R>(String namespace) implements Decision<R> {}

  /** No copy may be written there. */
  public record Refused<R>(String namespace, DestinationResult.State state, String message)
      implements Decision<R> {}
}
