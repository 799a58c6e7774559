package dev.bosun.config.sync;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.runtime.DaemonThreads;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a {@link SyncPlan}: copies written by common's {@link Applier} (server-side apply,
 * never over an object that is not a copy of the sync), in parallel (one source often feeds
 * hundreds), and stale copies deleted. Its threads stop when it is closed.
 */
public final class CopyWriter<R extends HasMetadata> implements AutoCloseable {

  private static final int PARALLEL_WRITES = 16;

  private static final Logger LOG = LoggerFactory.getLogger(CopyWriter.class);

  private final Class<R> type;
  private final ExecutorService writers =
      Executors.newFixedThreadPool(PARALLEL_WRITES, DaemonThreads.named("copy-writer"));

  public CopyWriter(Class<R> type) {
    this.type = type;
  }

  /**
   * {@code sync}'s plan carried out: a result per decision, in the plan's order; stale copies
   * deleted. {@code copies} are the sync's copies as the informer holds them.
   */
  public <P extends HasMetadata> List<DestinationResult> carryOut(
      P sync, SyncPlan<R> plan, Collection<R> copies, KubernetesClient client) {
    // The planner compared the copies' content: each planned write is written (no hash kept).
    Applier<P> applier =
        new Applier<>(
            client, ChildCache.none(), ConfigSyncOperator.NAME, null, CopyWriter::isCopyOf);
    List<CompletableFuture<DestinationResult>> results = new ArrayList<>();
    for (SyncPlan.Decision<R> decision : plan.decisions()) {
      results.add(result(sync, decision, applier, copies));
    }
    List<DestinationResult> done = results.stream().map(CompletableFuture::join).toList();
    plan.deletions().forEach(stale -> delete(client, stale));
    return done;
  }

  private <P extends HasMetadata> CompletableFuture<DestinationResult> result(
      P sync, SyncPlan.Decision<R> decision, Applier<P> applier, Collection<R> copies) {
    String ns = decision.namespace();
    if (decision instanceof SyncPlan.Refused<R> refused) {
      return CompletableFuture.completedFuture(
          new DestinationResult(ns, refused.state(), null, refused.message()));
    }
    if (decision instanceof SyncPlan.Write<R> write) {
      return CompletableFuture.supplyAsync(
          () -> write(sync, write, applier, cached(write, copies)), writers);
    }
    return CompletableFuture.completedFuture(
        new DestinationResult(ns, State.SYNCED, null, "in sync"));
  }

  /** This sync's copy where {@code write} goes, as the informer holds it. */
  private Optional<R> cached(SyncPlan.Write<R> write, Collection<R> copies) {
    var meta = write.copy().getMetadata();
    return copies.stream()
        .filter(c -> c.getMetadata().getNamespace().equals(write.namespace()))
        .filter(c -> c.getMetadata().getName().equals(meta.getName()))
        .findFirst();
  }

  private <P extends HasMetadata> DestinationResult write(
      P sync, SyncPlan.Write<R> write, Applier<P> applier, Optional<R> cached) {
    String ns = write.namespace();
    String name = write.copy().getMetadata().getName();
    try {
      applier.apply(sync, write.copy(), cached, (live, desired) -> true);
      LOG.info("{} {}/{} written", write.create() ? "created copy" : "updated copy", ns, name);
      return new DestinationResult(ns, State.SYNCED, null, "in sync");
    } catch (Applier.ForeignObjectException e) {
      return new DestinationResult(
          ns,
          State.CONFLICT,
          null,
          type.getSimpleName()
              + " "
              + ns
              + "/"
              + name
              + " exists and was not created by this sync: Bosun never overwrites it");
    } catch (KubernetesClientException e) {
      // The status message of the API error, never the object (a Secret's data must not leak).
      String why = HumanMessages.describe(e);
      LOG.warn("copy to {}/{} failed: {}", ns, name, why);
      return new DestinationResult(ns, State.ERROR, null, "write failed: " + why);
    }
  }

  /** Whether {@code live} is a copy {@code sync} made: it carries the sync's name labels. */
  static boolean isCopyOf(HasMetadata sync, HasMetadata live) {
    Map<String, String> labels = live.getMetadata().getLabels();
    return labels != null
        && sync.getMetadata().getName().equals(labels.get(ConfigSyncOperator.SYNC_NAME_LABEL))
        && sync.getMetadata()
            .getNamespace()
            .equals(labels.get(ConfigSyncOperator.SYNC_NAMESPACE_LABEL));
  }

  /** Removes one copy. */
  public void delete(KubernetesClient client, R copy) {
    LOG.info(
        "removing copy {}/{}", copy.getMetadata().getNamespace(), copy.getMetadata().getName());
    client
        .resources(type)
        .inNamespace(copy.getMetadata().getNamespace())
        .withName(copy.getMetadata().getName())
        .delete();
  }

  /** Whether {@link #close()} has stopped the writer threads. */
  boolean closed() {
    return writers.isShutdown();
  }

  @Override
  public void close() {
    writers.shutdownNow();
  }
}
