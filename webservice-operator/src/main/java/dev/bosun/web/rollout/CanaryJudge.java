package dev.bosun.web.rollout;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Judges a canary by its answers: the operator's own HTTP checks of canary and stable Pods at one
 * step, compared revision against revision. Pure: samples in, a verdict with the numbers out.
 *
 * <p>The rule, stated once:
 *
 * <ol>
 *   <li>A sample succeeds when the Pod answered with the expected status within the latency bound;
 *       no answer, another status or a slower answer is a failure.
 *   <li>Nothing is judged before each revision has {@code minSamples} samples.
 *   <li>Success rate: the canary fails when its success rate is more than {@code maxRateDrop}
 *       (percentage points) below the stable revision's <em>and</em> a one-sided two-proportion
 *       z-test says so at 95% (z of at least 1.645, pooled proportion): a few unlucky samples at a
 *       low sample count do not abort a good canary.
 *   <li>Latency: the canary fails when the median latency of its answered samples exceeds {@code
 *       latencyRatio} times the stable revision's plus {@code latencySlack} (the slack keeps a 1 ms
 *       against 3 ms difference from counting). The median, not a high percentile: at 10 or 20
 *       samples a 95th percentile is the slowest sample, and one slow first connection of a good
 *       canary would abort it. A slow tail is caught by the latency bound of rule 1.
 *   <li>Otherwise it passes.
 * </ol>
 */
public final class CanaryJudge {

  /** The one-sided 95% quantile of the standard normal distribution. */
  static final double Z_95 = 1.645;

  private CanaryJudge() {}

  /** One HTTP check: the status (0 for no answer) and how long the answer took. */
  public record Sample(int status, Duration latency) {}

  /** What a canary's answers are held to. */
  public record Criteria(
      int expectedStatus,
      Duration latencyBound,
      int minSamples,
      int maxRateDrop,
      double latencyRatio,
      Duration latencySlack) {}

  /** The verdict, with a sentence carrying the numbers. */
  public sealed interface Verdict {
    String message();

    /** Too few samples yet. */
    record Pending(String message) implements Verdict {}

    /** The canary answers as well as the stable revision. */
    record Pass(String message) implements Verdict {}

    /** The canary answers worse: the release aborts. */
    record Fail(String message) implements Verdict {}
  }

  /** The verdict on {@code canary}'s samples against {@code stable}'s. */
  public static Verdict judge(Criteria c, List<Sample> canary, List<Sample> stable) {
    if (canary.size() < c.minSamples() || stable.size() < c.minSamples()) {
      return new Verdict.Pending(
          "analysis: "
              + canary.size()
              + " canary and "
              + stable.size()
              + " stable samples of "
              + c.minSamples()
              + " each");
    }
    int okCanary = successes(c, canary);
    int okStable = successes(c, stable);
    double rateCanary = (double) okCanary / canary.size();
    double rateStable = (double) okStable / stable.size();
    long medianCanary = medianMillis(canary);
    long medianStable = medianMillis(stable);
    String numbers =
        "success rate "
            + percent(rateCanary)
            + " ("
            + okCanary
            + " of "
            + canary.size()
            + ") against the stable revision's "
            + percent(rateStable)
            + " ("
            + okStable
            + " of "
            + stable.size()
            + "), median latency "
            + medianCanary
            + " ms against "
            + medianStable
            + " ms";
    double z = zScore(okStable, stable.size(), okCanary, canary.size());
    if ((rateStable - rateCanary) * 100 > c.maxRateDrop() && z >= Z_95) {
      return new Verdict.Fail(
          "the canary answers worse than the stable revision: "
              + numbers
              + " (more than "
              + c.maxRateDrop()
              + " points lower, z = "
              + String.format(Locale.ROOT, "%.2f", z)
              + ")");
    }
    long allowed = Math.round(medianStable * c.latencyRatio()) + c.latencySlack().toMillis();
    if (medianCanary > allowed) {
      return new Verdict.Fail(
          "the canary answers slower than the stable revision: "
              + numbers
              + " (more than "
              + allowed
              + " ms allowed)");
    }
    return new Verdict.Pass("the canary answers as well as the stable revision: " + numbers);
  }

  private static int successes(Criteria c, List<Sample> samples) {
    return (int)
        samples.stream()
            .filter(
                s ->
                    s.status() == c.expectedStatus()
                        && s.latency().compareTo(c.latencyBound()) <= 0)
            .count();
  }

  /** The median (nearest rank) of the answered samples' latency; 0 without answers. */
  static long medianMillis(List<Sample> samples) {
    List<Long> answered =
        samples.stream()
            .filter(s -> s.status() > 0)
            .map(s -> s.latency().toMillis())
            .sorted()
            .toList();
    if (answered.isEmpty()) {
      return 0;
    }
    int rank = (int) Math.ceil(0.5 * answered.size());
    return answered.get(Math.max(0, rank - 1));
  }

  /** The two-proportion z statistic of stable's rate above canary's (0 when both are 0 or 1). */
  static double zScore(int okStable, int nStable, int okCanary, int nCanary) {
    double pooled = (double) (okStable + okCanary) / (nStable + nCanary);
    double variance = pooled * (1 - pooled) * (1.0 / nStable + 1.0 / nCanary);
    if (variance == 0) {
      return 0;
    }
    return ((double) okStable / nStable - (double) okCanary / nCanary) / Math.sqrt(variance);
  }

  private static String percent(double rate) {
    return String.format(Locale.ROOT, "%.0f%%", rate * 100);
  }
}
