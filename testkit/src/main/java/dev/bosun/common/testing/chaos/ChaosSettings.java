package dev.bosun.common.testing.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How a chaos suite runs: the shape of each schedule (how many faults, over how long, how many
 * lasting faults at once at most, how long the cluster has to be Ready after the last heal) and
 * which seeds to run: one given seed ({@code -Dbosun.chaos.seed=S}, a replay), fresh seeds for a
 * number of minutes ({@code -Dbosun.chaos.minutes=M}, a long run), or else the suite's fixed seeds
 * (CI).
 */
public record ChaosSettings(
    int faults, Duration span, int maxOverlap, Duration readyBound, SeedSource seeds) {

  public static final String SEED = "bosun.chaos.seed";
  public static final String MINUTES = "bosun.chaos.minutes";

  public ChaosSettings {
    if (faults < 1 || span.isZero() || span.isNegative() || maxOverlap < 1) {
      throw new IllegalArgumentException("faults >= 1, span > 0 and maxOverlap >= 1 expected");
    }
  }

  /**
   * Settings with the seeds chosen by the system properties {@value #SEED} and {@value #MINUTES},
   * or {@code fixedSeeds} when neither is set.
   */
  public static ChaosSettings fromSystemProperties(
      int faults, Duration span, int maxOverlap, Duration readyBound, List<Long> fixedSeeds) {
    return new ChaosSettings(
        faults,
        span,
        maxOverlap,
        readyBound,
        SeedSource.choose(
            property(SEED).map(Long::parseLong),
            property(MINUTES).map(m -> Duration.ofSeconds(Math.round(Double.parseDouble(m) * 60))),
            fixedSeeds));
  }

  private static Optional<String> property(String name) {
    return Optional.ofNullable(System.getProperty(name))
        .map(String::strip)
        .filter(v -> !v.isEmpty());
  }

  /** One seed's schedule as a suite runs it. */
  @FunctionalInterface
  public interface Run {
    /** Runs the {@code index}th schedule (from 1), of {@code seed}; why it failed, or null. */
    String schedule(long seed, int index) throws Exception;
  }

  /**
   * Runs {@code run} for every seed in turn; returns the failures, each printed as it happens (a
   * long run goes on past a failing seed and reports them all at the end).
   */
  public List<String> runEach(Run run) throws Exception {
    List<String> failures = new ArrayList<>();
    int index = 0;
    for (OptionalLong seed = seeds.next(); seed.isPresent(); seed = seeds.next()) {
      String failure = run.schedule(seed.getAsLong(), ++index);
      if (failure != null) {
        System.err.println(failure);
        failures.add(failure);
      }
    }
    return failures;
  }

  /**
   * Runs {@code run} for every seed ({@link #runEach}), prints {@code table}'s totals, and fails
   * when no schedule ran or any failed, with every failure in the message.
   */
  public void runAll(ChaosTable table, String tag, Run run) throws Exception {
    List<String> failures = runEach(run);
    System.err.println(tag + " " + table.totals());
    if (table.results().isEmpty()) {
      throw new AssertionError("no schedule ran");
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(
          failures.size() + " failing schedules:\n" + String.join("\n", failures));
    }
  }

  /** The schedule of one seed under these settings. */
  public FaultSchedule schedule(long seed, List<FaultKind> menu) {
    return FaultSchedule.generate(seed, menu, faults, span, maxOverlap);
  }

  /**
   * The same schedule with {@code count} faults more, drawn from {@code besides} on a random stream
   * of their own: a menu grown this way leaves every seed's earlier faults (and so the replays
   * recorded of them) as they were.
   */
  public FaultSchedule schedule(
      long seed, List<FaultKind> menu, List<FaultKind> besides, int count) {
    return schedule(seed, menu).plus(seed ^ BESIDES_SALT, besides, count, span, maxOverlap);
  }

  /** Tells the random stream of the faults drawn besides a menu from the menu's own. */
  private static final long BESIDES_SALT = 0x5DEECE66DL;
}
