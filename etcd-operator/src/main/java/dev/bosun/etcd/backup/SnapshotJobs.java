package dev.bosun.etcd.backup;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs snapshots on a small pool of their own, never on a reconcile thread (a snapshot of a large
 * database takes minutes, and a reconcile thread held that long starves every other cluster). At
 * most one job per EtcdBackup; a bounded queue, so a burst of due backups waits instead of piling
 * up threads. The reconciler submits a job, reports its progress, and records its result.
 */
public final class SnapshotJobs implements AutoCloseable {

  /** Snapshots taken at once. */
  public static final int THREADS = 2;

  /** Snapshots waiting for a thread before new ones are refused (and retried later). */
  public static final int QUEUE = 16;

  /** What a job does, given the counter it reports received bytes to. */
  @FunctionalInterface
  public interface Work {
    SnapshotTaker.Snapshot run(AtomicLong bytes) throws Exception;
  }

  /** One snapshot in progress or done. */
  public static final class Job {
    private final Instant startedAt;
    private final String key;
    private final AtomicLong bytes = new AtomicLong();
    private final CompletableFuture<SnapshotTaker.Snapshot> result = new CompletableFuture<>();

    Job(Instant startedAt, String key) {
      this.startedAt = startedAt;
      this.key = key;
    }

    public Instant startedAt() {
      return startedAt;
    }

    /** The key the snapshot is stored under. */
    public String key() {
      return key;
    }

    /** Bytes received from etcd so far. */
    public long bytes() {
      return bytes.get();
    }

    public boolean done() {
      return result.isDone();
    }

    /** The finished job's snapshot, or the exception that ended it. */
    public CompletableFuture<SnapshotTaker.Snapshot> result() {
      return result;
    }
  }

  private final Map<String, Job> jobs = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor pool;

  public SnapshotJobs() {
    AtomicInteger n = new AtomicInteger();
    pool =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUE),
            r -> {
              Thread t = new Thread(r, "etcd-snapshot-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** The job of the backup with this UID: running, or done and not yet collected. */
  public Optional<Job> job(String backupUid) {
    return Optional.ofNullable(jobs.get(backupUid));
  }

  /**
   * Starts a snapshot for the backup; a {@link RejectedExecutionException} when the queue is full.
   */
  public Job submit(String backupUid, Instant startedAt, String key, Work work) {
    Job job = new Job(startedAt, key);
    if (jobs.putIfAbsent(backupUid, job) != null) {
      throw new IllegalStateException("a snapshot of this backup is already running");
    }
    try {
      pool.execute(
          () -> {
            try {
              job.result.complete(work.run(job.bytes));
            } catch (Exception | Error e) {
              job.result.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      jobs.remove(backupUid, job);
      throw e;
    }
    return job;
  }

  /** Forgets a finished job once its result is recorded. */
  public void collect(String backupUid) {
    jobs.computeIfPresent(backupUid, (k, j) -> j.done() ? null : j);
  }

  /** Snapshots running or queued now. */
  public int active() {
    return (int) jobs.values().stream().filter(j -> !j.done()).count();
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
