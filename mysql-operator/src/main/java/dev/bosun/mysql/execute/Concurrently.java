package dev.bosun.mysql.execute;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs the same call against several instances at once and waits for all of them. The calls are
 * independent round trips to different servers (stop a receiver, observe, repoint), so running them
 * one after another only adds up their latencies; the caller still sees every result before it goes
 * on, in the order it gave.
 */
final class Concurrently {

  /** A call against one instance that may fail with an {@link InstanceException}. */
  @FunctionalInterface
  interface Call<T, R> {
    R apply(T item) throws InstanceException;
  }

  /** What one call gave: its value, or its failure. */
  record Result<T, R>(T item, R value, InstanceException failure) {

    boolean failed() {
      return failure != null;
    }
  }

  private static final AtomicInteger THREADS = new AtomicInteger();

  // Threads end after a minute idle; at most one per instance a round is working on.
  private static final ExecutorService POOL =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "mysql-instance-io-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private Concurrently() {}

  /** {@code call} started on another thread, to be joined once the caller's own calls ended. */
  static <R> CompletableFuture<R> alongside(Supplier<R> call) {
    return CompletableFuture.supplyAsync(call, POOL);
  }

  /**
   * {@code call} on every item at once (the last one on the calling thread), every result in the
   * order of {@code items}. An unchecked exception of any call is thrown once all have ended.
   */
  static <T, R> List<Result<T, R>> each(List<T> items, Call<T, R> call) {
    List<CompletableFuture<Result<T, R>>> started = new ArrayList<>();
    for (int i = 0; i < items.size() - 1; i++) {
      T item = items.get(i);
      started.add(CompletableFuture.supplyAsync(() -> run(item, call), POOL));
    }
    List<Result<T, R>> out = new ArrayList<>();
    RuntimeException unchecked = null;
    Result<T, R> last = null;
    if (!items.isEmpty()) {
      try {
        last = run(items.get(items.size() - 1), call);
      } catch (RuntimeException e) {
        unchecked = e;
      }
    }
    for (CompletableFuture<Result<T, R>> f : started) {
      try {
        out.add(f.join());
      } catch (CompletionException e) {
        if (unchecked == null) {
          unchecked = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
      }
    }
    if (unchecked != null) {
      throw unchecked;
    }
    if (last != null) {
      out.add(last);
    }
    return out;
  }

  /** The first failed result, if any. */
  static <T, R> Result<T, R> firstFailure(List<Result<T, R>> results) {
    return results.stream().filter(Result::failed).findFirst().orElse(null);
  }

  private static <T, R> Result<T, R> run(T item, Call<T, R> call) {
    try {
      return new Result<>(item, call.apply(item), null);
    } catch (InstanceException e) {
      return new Result<>(item, null, e);
    }
  }
}
