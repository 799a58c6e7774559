package dev.bosun.web.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.rollout.CanaryJudge.Verdict;
import org.junit.jupiter.api.Test;

/** Prometheus' instant query answers, as its HTTP API writes them. */
class PrometheusAnswersTest {

  private static final String Q = "sum(rate(errors[1m])) / sum(rate(requests[1m]))";

  private static String vector(String... values) {
    StringBuilder result = new StringBuilder();
    for (String v : values) {
      result.append(result.isEmpty() ? "" : ",");
      result.append("{\"metric\":{},\"value\":[1732700000.123,\"").append(v).append("\"]}");
    }
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
        + result
        + "]}}";
  }

  @Test
  void aValueAtOrBelowTheMaximumPasses() {
    Verdict v = PrometheusAnswers.judge(Q, vector("0.005"), 0.01);
    assertThat(v).isInstanceOf(Verdict.Pass.class);
    assertThat(v.message())
        .isEqualTo("the Prometheus query " + Q + " gave 0.005000 (at most 0.01000 passes)");
    assertThat(PrometheusAnswers.judge(Q, vector("1"), 1)).isInstanceOf(Verdict.Pass.class);
  }

  @Test
  void aValueAboveTheMaximumFailsWithTheNumbers() {
    Verdict v = PrometheusAnswers.judge(Q, vector("0.5"), 0.01);
    assertThat(v).isInstanceOf(Verdict.Fail.class);
    assertThat(v.message())
        .isEqualTo("the Prometheus query " + Q + " gave 0.5000 (at most 0.01000 passes)");
  }

  @Test
  void aScalarCountsToo() {
    String scalar =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1732700000,\"3\"]}}";
    assertThat(PrometheusAnswers.judge("3", scalar, 5).message())
        .isEqualTo("the Prometheus query 3 gave 3 (at most 5 passes)");
  }

  @Test
  void noSingleNumberFailsTheGate() {
    assertThat(PrometheusAnswers.judge(Q, vector(), 1).message())
        .isEqualTo("the Prometheus query " + Q + " gave no single number (0 series)");
    assertThat(PrometheusAnswers.judge(Q, vector("1", "2"), 5).message())
        .endsWith("gave no single number (2 series)");
    assertThat(PrometheusAnswers.judge(Q, vector("NaN"), 5).message()).endsWith("gave NaN");
    assertThat(PrometheusAnswers.judge(Q, vector("NaN"), 5)).isInstanceOf(Verdict.Fail.class);
  }

  @Test
  void anErrorOrNoJsonFailsWithTheReason() {
    String error =
        "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:5: parse error: unexpected"
            + " end of input\"}";
    assertThat(PrometheusAnswers.judge("sum(", error, 1).message())
        .isEqualTo("the Prometheus query sum( failed: 1:5: parse error: unexpected end of input");
    assertThat(PrometheusAnswers.judge(Q, "<html>bad gateway</html>", 1).message())
        .isEqualTo("the Prometheus query " + Q + " got no JSON answer");
  }
}
