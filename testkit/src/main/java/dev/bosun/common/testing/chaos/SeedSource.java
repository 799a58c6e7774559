package dev.bosun.common.testing.chaos;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * The seeds a chaos suite runs, one schedule each: a fixed list (CI, a replay), or fresh seeds
 * until a deadline (a long run). Not thread-safe: one suite draws from it.
 */
public final class SeedSource {

  private final Deque<Long> fixed;
  private final SplittableRandom fresh;
  private final long deadlineNanos;
  private final LongSupplier nanoTime;

  private SeedSource(
      List<Long> fixed, SplittableRandom fresh, long deadlineNanos, LongSupplier nanoTime) {
    this.fixed = new ArrayDeque<>(fixed);
    this.fresh = fresh;
    this.deadlineNanos = deadlineNanos;
    this.nanoTime = nanoTime;
  }

  /** These seeds, in order. */
  public static SeedSource of(List<Long> seeds) {
    return new SeedSource(seeds, null, 0, System::nanoTime);
  }

  /** Fresh seeds (from {@code origin}) until {@code minutes} have passed on {@code nanoTime}. */
  public static SeedSource forDuration(Duration length, long origin, LongSupplier nanoTime) {
    return new SeedSource(
        List.of(), new SplittableRandom(origin), nanoTime.getAsLong() + length.toNanos(), nanoTime);
  }

  static SeedSource choose(Optional<Long> seed, Optional<Duration> length, List<Long> fixed) {
    if (seed.isPresent()) {
      return of(List.of(seed.get()));
    }
    if (length.isPresent()) {
      return forDuration(length.get(), System.currentTimeMillis(), System::nanoTime);
    }
    return of(fixed);
  }

  /** The next seed, or empty when the list is done or the deadline has passed. */
  public OptionalLong next() {
    if (fresh == null) {
      Long seed = fixed.poll();
      return seed == null ? OptionalLong.empty() : OptionalLong.of(seed);
    }
    if (nanoTime.getAsLong() - deadlineNanos >= 0) {
      return OptionalLong.empty();
    }
    // Positive seeds under a million are short enough to type in a replay command.
    return OptionalLong.of(fresh.nextLong(1, 1_000_000));
  }

  /** True for a time-bound run (a long run), false for a fixed list of seeds. */
  public boolean timeBound() {
    return fresh != null;
  }
}
