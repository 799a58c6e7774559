package dev.bosun.mysql.testing;

import dev.bosun.common.backup.BackgroundJobs;
import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.mysql.backup.JobFailures;
import dev.bosun.mysql.backup.ReplicaCopy;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.Rebuilder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Replica rebuilds in a network lab, the way {@code ReplicaRebuilder} runs them in a cluster: one
 * operator process's background worker prepares the member from the operator's address and keeps
 * its errant transactions in a directory; the copy itself runs apart, as the rebuild's Job would
 * (from this machine's own address), outlives the operator process that started it, and is waited
 * out by the next attempt before that touches the member, as the real one deletes the old Job.
 */
public final class LabRebuilder implements Rebuilder, AutoCloseable {

  /** The copy under way, shared by the operator processes of one cluster: the "Job". */
  public static final class CopyJob {
    private final AtomicReference<CompletableFuture<ReplicaCopy.Copied>> running =
        new AtomicReference<>();

    /** Waits until an earlier copy ended, however it ended; bounded like a Job's deletion. */
    void removeEarlier() throws InstanceException {
      CompletableFuture<ReplicaCopy.Copied> earlier = running.get();
      if (earlier == null) {
        return;
      }
      try {
        earlier.get(3, TimeUnit.MINUTES);
      } catch (ExecutionException ended) {
        // It failed: gone all the same.
      } catch (TimeoutException e) {
        throw new InstanceException("the copy of an earlier attempt still runs after 3 minutes");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InstanceException("interrupted while an earlier copy ran");
      }
    }

    /** Starts a copy on a thread of its own and waits for it (the operator watches its Job). */
    ReplicaCopy.Copied run(Work copy) throws Exception {
      CompletableFuture<ReplicaCopy.Copied> job = new CompletableFuture<>();
      running.set(job);
      Thread t =
          new Thread(
              () -> {
                try {
                  job.complete(copy.run());
                } catch (Throwable e) {
                  job.completeExceptionally(e);
                }
              },
              "lab-rebuild-copy");
      t.setDaemon(true);
      t.start();
      try {
        return job.get();
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception x ? x : e;
      }
    }
  }

  /** The copy's work. */
  interface Work {
    ReplicaCopy.Copied run() throws Exception;
  }

  /** What one rebuild did: the operator's part, then where the member landed. */
  record Result(ReplicaCopy.Prepared prepared, ReplicaCopy.Copied landed) {}

  private static final String KEY = "cluster";
  private static final Duration SQL_TIMEOUT = Duration.ofSeconds(10);

  private final String operatorAddress;
  private final FileSystemBackupStore store;
  private final CopyJob copyJob;
  private final BackgroundJobs<Result> worker =
      new BackgroundJobs<>("lab-rebuild", 1, 4, JobFailures::describe);
  private volatile String doing = "queued";

  /**
   * One operator process's rebuilds: connections from {@code operatorAddress}, errant transactions
   * kept below {@code errantDir}, copies in {@code copyJob}.
   */
  public LabRebuilder(String operatorAddress, Path errantDir, CopyJob copyJob) {
    this.operatorAddress = operatorAddress;
    this.store = new FileSystemBackupStore(errantDir);
    this.copyJob = copyJob;
  }

  @Override
  public String unsupported() {
    return null;
  }

  @Override
  public boolean canKeepErrant() {
    return true;
  }

  @Override
  public String location(String artifact) {
    return store.location(artifact);
  }

  @Override
  public boolean start(Job job) {
    doing = "queued";
    return worker.submit(
        KEY, "rebuild of " + job.member(), Clock.systemUTC().instant(), () -> rebuild(job));
  }

  private Result rebuild(Job job) throws Exception {
    ReplicaCopy operatorSide =
        new ReplicaCopy(
            new MariaDbDialect("?localSocketAddress=" + operatorAddress),
            job.credentials(),
            SQL_TIMEOUT);
    doing = "making sure no copy of an earlier attempt runs";
    copyJob.removeEarlier();
    ReplicaCopy.Prepared prepared =
        operatorSide.prepare(
            job.target(), job.source(), job.errantAfter(), store, job.artifact(), d -> doing = d);
    ReplicaCopy jobSide = new ReplicaCopy(new MariaDbDialect(), job.credentials(), SQL_TIMEOUT);
    copyJob.run(() -> jobSide.copy(job.target(), job.source(), d -> doing = d));
    return new Result(prepared, operatorSide.landed(job.target()));
  }

  @Override
  public Progress progress() {
    return worker
        .state(KEY)
        .map(
            s -> {
              if (s instanceof BackgroundJobs.Done<Result> d) {
                return new Progress(
                    false,
                    "replicating after GTID " + d.result().landed().position(),
                    null,
                    d.result().prepared().exportRan(),
                    d.result().prepared().errant().size());
              }
              if (s instanceof BackgroundJobs.Failed<Result> f) {
                return new Progress(false, null, f.message(), false, 0);
              }
              return new Progress(true, doing, null, false, 0);
            })
        .orElse(null);
  }

  @Override
  public void forget() {
    worker.forget(KEY);
  }

  /** The operator process ends: its worker stops; a copy it started runs on, as a Job would. */
  @Override
  public void close() {
    worker.close();
  }
}
