package dev.bosun.common.runtime;

/**
 * Gives the JVM's common pool at least two threads before anything uses it, so that asynchronous
 * completions run on pooled threads.
 */
// With one or two CPUs the common pool's parallelism is 1, and CompletableFuture then runs every
// async stage that names no executor on a new thread. The JDK HTTP client completes each response
// that way: a benchmark of 500 WebServices started over 6,800 threads, one per request.
public final class AsyncPool {

  /** The system property the common pool reads its parallelism from, once. */
  static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  private AsyncPool() {}

  /**
   * Sets the common pool's parallelism to 2 unless the JVM was given one or has more than two CPUs;
   * call it first in {@code main}, before the pool exists (later calls change nothing).
   */
  public static void ensureTwoThreads() {
    if (System.getProperty(PARALLELISM) == null
        && Runtime.getRuntime().availableProcessors() <= 2) {
      System.setProperty(PARALLELISM, "2");
    }
  }
}
