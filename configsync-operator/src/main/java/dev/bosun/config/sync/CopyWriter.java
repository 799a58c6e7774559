package dev.bosun.config.sync;

import dev.bosun.common.runtime.DaemonThreads;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a {@link SyncPlan}: copies written by server-side apply, in parallel (one source
 * often feeds hundreds), and stale copies deleted. Its threads stop when it is closed.
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

  /** The plan carried out: a result per decision, in the plan's order; stale copies deleted. */
  public List<DestinationResult> carryOut(SyncPlan<R> plan, KubernetesClient client) {
    List<CompletableFuture<DestinationResult>> results = new ArrayList<>();
    for (SyncPlan.Decision<R> decision : plan.decisions()) {
      results.add(result(decision, client));
    }
    List<DestinationResult> done = results.stream().map(CompletableFuture::join).toList();
    plan.deletions().forEach(stale -> delete(client, stale));
    return done;
  }

  private CompletableFuture<DestinationResult> result(
      SyncPlan.Decision<R> decision, KubernetesClient client) {
    String ns = decision.namespace();
    if (decision instanceof SyncPlan.Refused<R> refused) {
      return CompletableFuture.completedFuture(
          new DestinationResult(ns, refused.state(), null, refused.message()));
    }
    if (decision instanceof SyncPlan.Write<R> write) {
      return CompletableFuture.supplyAsync(() -> write(client, write), writers);
    }
    return CompletableFuture.completedFuture(
        new DestinationResult(ns, State.SYNCED, null, "in sync"));
  }

  private DestinationResult write(KubernetesClient client, SyncPlan.Write<R> write) {
    String ns = write.namespace();
    String name = write.copy().getMetadata().getName();
    try {
      if (write.create() && client.resources(type).inNamespace(ns).withName(name).get() != null) {
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
      }
      client
          .resources(type)
          .inNamespace(ns)
          .resource(write.copy())
          .fieldManager(ConfigSyncOperator.NAME)
          .forceConflicts()
          .serverSideApply();
      LOG.info("{} {}/{} written", write.create() ? "created copy" : "updated copy", ns, name);
      return new DestinationResult(ns, State.SYNCED, null, "in sync");
    } catch (KubernetesClientException e) {
      // The status message of the API error, never the object (a Secret's data must not leak).
      String why = HumanMessages.describe(e);
      LOG.warn("copy to {}/{} failed: {}", ns, name, why);
      return new DestinationResult(ns, State.ERROR, null, "write failed: " + why);
    }
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
