package dev.bosun.common.backup;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Long work (dumps, snapshots, restores, replica copies) on a small bounded pool instead of the
 * reconcile threads, so one large dump never stalls another cluster's failover. One job per key (a
 * resource's uid); the reconciler looks at its state each round (with the progress the work
 * reported, such as the bytes dumped so far) and takes the result when it is done.
 *
 * @param <T> what a job produces
 */
public final class BackgroundJobs<T> implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BackgroundJobs.class);

  /** Where a job stands. */
  public sealed interface State<T> {
    /** What the job does, for status messages. */
    String description();

    /** When it was accepted. */
    Instant since();
  }

  /**
   * Accepted, queued or running; {@code progress} is what the work last reported (for a dump, the
   * bytes written so far), 0 until it reports.
   */
  public record Running<T>(String description, Instant since, long progress) implements State<T> {}

  /** Finished with a result. */
  public record Done<T>(String description, Instant since, T result) implements State<T> {}

  /**
   * Failed; the message names the cause for a person (the pool's describer), never an exception's
   * text.
   */
  public record Failed<T>(String description, Instant since, String message) implements State<T> {}

  /** Work that reports its progress to a counter the Running state shows. */
  @FunctionalInterface
  public interface Work<T> {
    T run(AtomicLong progress) throws Exception;
  }

  /** One job: what it does, since when, its progress counter, and its end once it ended. */
  private static final class Job<T> {
    final String description;
    final Instant since;
    final AtomicLong progress = new AtomicLong();
    volatile State<T> ended;

    Job(String description, Instant since) {
      this.description = description;
      this.since = since;
    }

    State<T> state() {
      State<T> end = ended;
      return end != null ? end : new Running<>(description, since, progress.get());
    }
  }

  private final ThreadPoolExecutor pool;
  private final Map<String, Job<T>> jobs = new ConcurrentHashMap<>();
  private final int threads;
  private final int queued;
  private final Function<Throwable, String> describer;

  /**
   * A pool of {@code threads} workers named {@code name-N} and room for {@code queued} waiting
   * jobs; {@code describer} turns a failure into the sentence a status shows.
   */
  public BackgroundJobs(
      String name, int threads, int queued, Function<Throwable, String> describer) {
    this.threads = threads;
    this.queued = queued;
    this.describer = describer;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            1,
            TimeUnit.MINUTES,
            new ArrayBlockingQueue<>(queued),
            r -> {
              Thread t = new Thread(r, name + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** The workers running jobs at once. */
  public int threads() {
    return threads;
  }

  /** The jobs that may wait for a worker before new ones are refused. */
  public int queued() {
    return queued;
  }

  /** The sentence for a person naming the cause of {@code failure}, as a Failed job shows it. */
  public String describe(Throwable failure) {
    return describer.apply(failure);
  }

  /** The state of the job under {@code key}, if there is one. */
  public Optional<State<T>> state(String key) {
    return Optional.ofNullable(jobs.get(key)).map(Job::state);
  }

  /** {@link #submit(String, String, Instant, Work)} for work that reports no progress. */
  public boolean submit(String key, String description, Instant now, Callable<T> work) {
    return submit(key, description, now, progress -> work.call());
  }

  /**
   * Starts a job under {@code key}; false when one is already there or the queue is full (the
   * caller tries again in a later round).
   */
  public boolean submit(String key, String description, Instant now, Work<T> work) {
    Job<T> job = new Job<>(description, now);
    if (jobs.putIfAbsent(key, job) != null) {
      return false;
    }
    try {
      pool.execute(
          () -> {
            try {
              job.ended = new Done<>(description, now, work.run(job.progress));
            } catch (Throwable e) {
              // Errors too: a job left Running would hold its key (and its backup) forever. The
              // status gets a sentence naming the cause; the log keeps the exception.
              LOG.warn("{} failed", description, e);
              job.ended = new Failed<>(description, now, describe(e));
            }
          });
      return true;
    } catch (RejectedExecutionException full) {
      jobs.remove(key, job);
      return false;
    }
  }

  /** Forgets a finished job once its result has been recorded. */
  public void forget(String key) {
    jobs.computeIfPresent(key, (k, job) -> job.ended == null ? job : null);
  }

  /** Interrupts running jobs (their client processes are killed) and accepts no new one. */
  @Override
  public void close() {
    pool.shutdownNow();
  }
}
