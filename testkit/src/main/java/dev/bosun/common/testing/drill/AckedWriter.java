package dev.bosun.common.testing.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A background writer that writes sequence numbers 0, 1, 2, ... one at a time and remembers which
 * writes were acknowledged, so a drill can check that none of them was lost. A failed write may
 * still have committed (its outcome is ambiguous), so only acknowledged ones are promised; a failed
 * sequence number is never retried. It stops by itself after {@code maxWrites} attempts or {@code
 * maxDuration}, whichever comes first.
 */
public final class AckedWriter implements AutoCloseable {

  /** Writes the row or key for {@code seq}; returns when it is acknowledged, throws if not. */
  @FunctionalInterface
  public interface Write {
    void write(long seq) throws Exception;
  }

  private static final int FAILURE_SAMPLES = 10;
  private static final Duration JOIN = Duration.ofSeconds(30);

  private final String name;
  private final Write write;
  private final Duration interval;
  private final long maxWrites;
  private final long deadlineNanos;
  private final Set<Long> acked = new ConcurrentSkipListSet<>();
  private final long startNanos = System.nanoTime();
  private final AtomicLong lastAckNanos = new AtomicLong(startNanos);
  private final AtomicLong longestGapNanos = new AtomicLong();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final List<String> failureSamples = new ArrayList<>();
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final Thread thread;

  private AckedWriter(
      String name, Write write, Duration interval, long maxWrites, Duration maxDuration) {
    this.name = name;
    this.write = write;
    this.interval = interval;
    this.maxWrites = maxWrites;
    this.deadlineNanos = System.nanoTime() + maxDuration.toNanos();
    this.thread = new Thread(this::run, "acked-writer-" + name);
    thread.setDaemon(true);
  }

  /**
   * Starts writing: one write, then a pause of {@code interval}, and so on, until {@link #stop()},
   * {@code maxWrites} attempts or {@code maxDuration}.
   */
  public static AckedWriter start(
      String name, Write write, Duration interval, long maxWrites, Duration maxDuration) {
    if (interval.isNegative() || maxWrites < 1 || maxDuration.isNegative()) {
      throw new IllegalArgumentException(
          "interval >= 0, maxWrites >= 1 and maxDuration >= 0 expected");
    }
    AckedWriter writer = new AckedWriter(name, write, interval, maxWrites, maxDuration);
    writer.thread.start();
    return writer;
  }

  private void run() {
    try {
      writeAll();
    } finally {
      // An outage that lasted until the writer stopped counts too.
      longestGapNanos.accumulateAndGet(System.nanoTime() - lastAckNanos.get(), Math::max);
    }
  }

  private void writeAll() {
    for (long seq = 0; seq < maxWrites && System.nanoTime() < deadlineNanos; seq++) {
      if (stopping.getCount() == 0) {
        return;
      }
      attempts.incrementAndGet();
      try {
        write.write(seq);
        acked.add(seq);
        acknowledgedAt(System.nanoTime());
      } catch (InterruptedException e) {
        failed(seq, e);
        return;
      } catch (Exception e) {
        failed(seq, e);
      }
      if (pause()) {
        return;
      }
    }
  }

  /** Waits {@code interval} (or less, up to the deadline); true if stopped meanwhile. */
  private boolean pause() {
    long left = Math.min(interval.toNanos(), deadlineNanos - System.nanoTime());
    try {
      return left > 0 ? stopping.await(left, TimeUnit.NANOSECONDS) : stopping.getCount() == 0;
    } catch (InterruptedException e) {
      return true;
    }
  }

  /** Remembers the longest time without an acknowledgement (the writer's longest outage). */
  private void acknowledgedAt(long now) {
    long previous = lastAckNanos.getAndSet(now);
    longestGapNanos.accumulateAndGet(now - previous, Math::max);
  }

  private void failed(long seq, Exception e) {
    failures.incrementAndGet();
    synchronized (failureSamples) {
      if (failureSamples.size() < FAILURE_SAMPLES) {
        failureSamples.add(seq + ": " + e);
      }
    }
  }

  /**
   * Stops writing and waits for the write in flight (interrupting it after 30 s); afterwards the
   * results no longer change.
   */
  public void stop() {
    stopping.countDown();
    try {
      thread.join(JOIN.toMillis());
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(JOIN.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      throw new IllegalStateException(name + ": the write in flight did not return after stop");
    }
  }

  /** Waits until the writer has stopped by itself (count or time bound) or by {@link #stop()}. */
  public boolean awaitDone(Duration timeout) throws InterruptedException {
    thread.join(Math.max(1, timeout.toMillis()));
    return !thread.isAlive();
  }

  /** True until the writer stopped. */
  public boolean isRunning() {
    return thread.isAlive();
  }

  /** The acknowledged sequence numbers so far, in order (a snapshot). */
  public SortedSet<Long> acknowledged() {
    return new TreeSet<>(acked);
  }

  /** How many writes were acknowledged so far. */
  public long acknowledgedCount() {
    return acked.size();
  }

  /** How many writes failed (timed out, refused, errored) so far. */
  public long failures() {
    return failures.get();
  }

  /** How many writes were attempted so far (acknowledged, failed or in flight). */
  public long attempts() {
    return attempts.get();
  }

  /** The first few failures, {@code "<seq>: <exception>"}, for a drill's log. */
  public List<String> failureSamples() {
    synchronized (failureSamples) {
      return List.copyOf(failureSamples);
    }
  }

  /**
   * The longest time the writer went without an acknowledgement so far: between two
   * acknowledgements, from the start to the first, or from the last one to now while the writer
   * runs (its unavailability as a client sees it).
   */
  public Duration longestGap() {
    long gap = longestGapNanos.get();
    if (thread.isAlive()) {
      gap = Math.max(gap, System.nanoTime() - lastAckNanos.get());
    }
    return Duration.ofNanos(gap);
  }

  /** The writer's name. */
  public String name() {
    return name;
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name
        + ": "
        + acked.size()
        + " acknowledged, "
        + failures.get()
        + " failed of "
        + attempts.get();
  }
}
