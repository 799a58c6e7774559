package dev.bosun.common.backup;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * What a backup is for one database, for {@link BackupReconciler}'s steps: the spec fields it
 * reads, where its store is, how a backup of the cluster starts and what its status records.
 *
 * @param <P> the backup kind
 * @param <C> the cluster kind it backs up
 * @param <R> what one backup job produces
 */
public interface BackupEngine<P, C, R> {

  /** The spec fields every backup kind has and this reconciler reads. */
  record BackupRequest(String clusterName, String schedule, Integer keep) {}

  /** What an engine answers when asked to start a backup. */
  sealed interface Start<R> {}

  /** No backup can start now: the reason, a sentence for a person, and when to try again. */
  record Blocked<R>(String reason, String message, Duration retry) implements Start<R> {}

  /**
   * The backup to run in the background: what it does (for status messages), the store key it
   * writes, and the work (which counts the bytes taken so far).
   */
  record Job<R>(String description, String key, BackgroundJobs.Work<R> work) implements Start<R> {}

  /** A finished backup as the status records it: the object, an Event's text, the kind's fields. */
  record Recorded(StoredObject stored, String message, Map<String, Object> fields) {}

  /** The spec fields of {@code backup} this reconciler reads. */
  BackupRequest request(P backup);

  /** The store and key prefix of {@code backup}'s objects. */
  BackupTarget openStore(P backup, KubernetesClient client) throws BackupStoreException;

  /** The backup of {@code cluster} to run now, or why none can start. */
  Start<R> start(P backup, C cluster, BackupTarget target, Instant now, KubernetesClient client);

  /** How the status records {@code result}, a job's finished backup. */
  Recorded recorded(P backup, R result);
}
