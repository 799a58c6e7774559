package dev.bosun.web.rollout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.web.rollout.CanaryJudge.Verdict;
import java.io.IOException;
import java.util.Locale;

/**
 * Reads the answer of Prometheus' instant query API ({@code /api/v1/query}) as one number and
 * judges it against the gate's highest passing value. Pure: the response body in, a verdict out. A
 * query that gives no single number (no series, several, NaN, an error) fails the gate with the
 * reason: a gate that cannot tell must not promote (an error ratio over no traffic is NaN; write
 * the query so that it gives 0 then, for example with {@code or vector(0)}).
 */
public final class PrometheusAnswers {

  private static final ObjectMapper JSON = new ObjectMapper();

  private PrometheusAnswers() {}

  /** The verdict on {@code body}, the response to {@code query}, against {@code maxValue}. */
  public static Verdict judge(String query, String body, double maxValue) {
    String q = HumanMessages.bounded(query, 200);
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return new Verdict.Fail("the Prometheus query " + q + " got no JSON answer");
    }
    if (!"success".equals(root.path("status").asText())) {
      return new Verdict.Fail(
          "the Prometheus query "
              + q
              + " failed: "
              + HumanMessages.bounded(root.path("error").asText("no reason given"), 200));
    }
    JsonNode data = root.path("data");
    JsonNode sample =
        switch (data.path("resultType").asText()) {
          case "scalar" -> data.path("result");
          case "vector" ->
              data.path("result").size() == 1 ? data.path("result").get(0).path("value") : null;
          default -> null;
        };
    if (sample == null || !sample.isArray() || sample.size() != 2) {
      return new Verdict.Fail(
          "the Prometheus query " + q + " gave no single number (" + count(data) + ")");
    }
    double value;
    try {
      value = Double.parseDouble(sample.get(1).asText());
    } catch (NumberFormatException e) {
      value = Double.NaN;
    }
    if (Double.isNaN(value)) {
      return new Verdict.Fail("the Prometheus query " + q + " gave NaN");
    }
    String numbers =
        "the Prometheus query "
            + q
            + " gave "
            + format(value)
            + " (at most "
            + format(maxValue)
            + " passes)";
    return value > maxValue ? new Verdict.Fail(numbers) : new Verdict.Pass(numbers);
  }

  private static String count(JsonNode data) {
    int n = data.path("result").isArray() ? data.path("result").size() : 0;
    return n == 1 ? "1 result of type " + data.path("resultType").asText() : n + " series";
  }

  private static String format(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15
        ? String.valueOf((long) v)
        : String.format(Locale.ROOT, "%.4g", v);
  }
}
