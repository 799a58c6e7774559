package dev.bosun.web.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.rollout.CanaryJudge.Criteria;
import dev.bosun.web.rollout.CanaryJudge.Sample;
import dev.bosun.web.rollout.CanaryJudge.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CanaryJudgeTest {

  private static final Criteria DEFAULTS =
      new Criteria(200, Duration.ofMillis(1000), 20, 5, 2.0, Duration.ofMillis(100));

  /** {@code n} samples, the first {@code failing} answering 500, all in {@code millis}. */
  private static List<Sample> samples(int n, int failing, long millis) {
    List<Sample> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(new Sample(i < failing ? 500 : 200, Duration.ofMillis(millis)));
    }
    return list;
  }

  @Test
  void nothingIsJudgedBeforeBothRevisionsHaveEnoughSamples() {
    Verdict v = CanaryJudge.judge(DEFAULTS, samples(19, 19, 5), samples(20, 0, 5));
    assertThat(v).isInstanceOf(Verdict.Pending.class);
    assertThat(v.message()).isEqualTo("analysis: 19 canary and 20 stable samples of 20 each");
    assertThat(CanaryJudge.judge(DEFAULTS, samples(20, 0, 5), samples(3, 0, 5)))
        .isInstanceOf(Verdict.Pending.class);
  }

  @Test
  void aCanaryAnswering500OnHalfItsRequestsFails() {
    Verdict v = CanaryJudge.judge(DEFAULTS, samples(20, 10, 5), samples(20, 0, 5));
    assertThat(v).isInstanceOf(Verdict.Fail.class);
    assertThat(v.message())
        .isEqualTo(
            "the canary answers worse than the stable revision: success rate 50% (10 of 20)"
                + " against the stable revision's 100% (20 of 20), median latency 5 ms against 5 ms"
                + " (more than 5 points lower, z = 3.65)");
  }

  @Test
  void aCanaryAnsweringInTwoSecondsWhereTheStableAnswersInMillisecondsFails() {
    Criteria generousBound =
        new Criteria(200, Duration.ofSeconds(5), 20, 5, 2.0, Duration.ofMillis(100));
    Verdict v = CanaryJudge.judge(generousBound, samples(20, 0, 2000), samples(20, 0, 4));
    assertThat(v).isInstanceOf(Verdict.Fail.class);
    assertThat(v.message())
        .startsWith("the canary answers slower than the stable revision:")
        .contains("median latency 2000 ms against 4 ms")
        .endsWith("(more than 108 ms allowed)");
    // Under the default 1 s bound, the slow answers are failures too.
    assertThat(CanaryJudge.judge(DEFAULTS, samples(20, 0, 2000), samples(20, 0, 4)).message())
        .contains("success rate 0% (0 of 20)");
  }

  @Test
  void aGoodCanaryPasses() {
    Verdict v = CanaryJudge.judge(DEFAULTS, samples(20, 0, 6), samples(20, 0, 5));
    assertThat(v).isInstanceOf(Verdict.Pass.class);
    assertThat(v.message())
        .isEqualTo(
            "the canary answers as well as the stable revision: success rate 100% (20 of 20)"
                + " against the stable revision's 100% (20 of 20), median latency 6 ms against 5 ms");
  }

  @Test
  void oneUnluckySampleAtALowCountIsNotSignificant() {
    // 19 of 20 against 20 of 20: 5 points lower, not more, and z = 1.01.
    assertThat(CanaryJudge.judge(DEFAULTS, samples(20, 1, 5), samples(20, 0, 5)))
        .isInstanceOf(Verdict.Pass.class);
    // 18 of 20: 10 points lower, but z = 1.45 < 1.645 at 20 samples.
    assertThat(CanaryJudge.judge(DEFAULTS, samples(20, 2, 5), samples(20, 0, 5)))
        .isInstanceOf(Verdict.Pass.class);
    // The same rate over 200 samples is significant.
    assertThat(CanaryJudge.judge(DEFAULTS, samples(200, 20, 5), samples(200, 0, 5)))
        .isInstanceOf(Verdict.Fail.class);
  }

  @Test
  void aStableRevisionFailingAsMuchIsNoReasonToAbort() {
    assertThat(CanaryJudge.judge(DEFAULTS, samples(20, 10, 5), samples(20, 10, 5)))
        .isInstanceOf(Verdict.Pass.class);
  }

  @Test
  void noAnswerIsAFailure() {
    List<Sample> silent = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      silent.add(new Sample(0, Duration.ofMillis(1000)));
    }
    Verdict v = CanaryJudge.judge(DEFAULTS, silent, samples(20, 0, 5));
    assertThat(v).isInstanceOf(Verdict.Fail.class);
    assertThat(v.message()).contains("success rate 0% (0 of 20)").contains("median latency 0 ms");
  }

  @Test
  void theLatencySlackKeepsTinyDifferencesFromCounting() {
    assertThat(CanaryJudge.judge(DEFAULTS, samples(20, 0, 90), samples(20, 0, 1)))
        .isInstanceOf(Verdict.Pass.class);
    assertThat(CanaryJudge.judge(DEFAULTS, samples(20, 0, 103), samples(20, 0, 1)))
        .isInstanceOf(Verdict.Fail.class);
  }

  @Test
  void theMedianIsTheNearestRankOfAnsweredSamples() {
    List<Sample> s = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      s.add(new Sample(200, Duration.ofMillis(i)));
    }
    s.add(new Sample(0, Duration.ofMillis(10_000)));
    assertThat(CanaryJudge.medianMillis(s)).isEqualTo(50);
    assertThat(CanaryJudge.medianMillis(List.of())).isZero();
  }

  @Test
  void oneSlowFirstAnswerOfAGoodCanaryDoesNotAbortIt() {
    List<Sample> canary = samples(20, 0, 6);
    canary.set(0, new Sample(200, Duration.ofMillis(156)));
    assertThat(CanaryJudge.judge(DEFAULTS, canary, samples(20, 0, 5)))
        .isInstanceOf(Verdict.Pass.class);
  }

  @Test
  void zIsZeroWhenEveryoneSucceedsOrEveryoneFails() {
    assertThat(CanaryJudge.zScore(20, 20, 20, 20)).isZero();
    assertThat(CanaryJudge.zScore(0, 20, 0, 20)).isZero();
  }
}
