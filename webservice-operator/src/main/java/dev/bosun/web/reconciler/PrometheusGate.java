package dev.bosun.web.reconciler;

import dev.bosun.common.status.HumanMessages;
import dev.bosun.web.rollout.CanaryJudge.Verdict;
import dev.bosun.web.rollout.PrometheusAnswers;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.webservicespec.rollout.canary.analysis.Prometheus;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Asks a team's Prometheus the gate's query once per canary step, when the step's HTTP checks have
 * passed (one instant query, a 5 s timeout), and remembers the verdict for the step.
 */
final class PrometheusGate {

  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(TIMEOUT)
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  private final Map<String, Asked> asked = new ConcurrentHashMap<>();

  /** A step's verdict. */
  private record Asked(String step, Verdict verdict) {}

  /** The verdict of {@code step} (asked now if it was not yet) for the WebService {@code key}. */
  Verdict verdict(String key, String step, WebService ws, Prometheus gate) {
    Asked known = asked.get(key);
    if (known != null && known.step().equals(step)) {
      return known.verdict();
    }
    Verdict verdict = ask(ws, gate);
    asked.put(key, new Asked(step, verdict));
    return verdict;
  }

  /** Forgets the verdicts of {@code key} (its release is over). */
  void forget(String key) {
    asked.remove(key);
  }

  /** Whether a verdict of {@code key} is remembered. */
  boolean remembers(String key) {
    return asked.containsKey(key);
  }

  private Verdict ask(WebService ws, Prometheus gate) {
    String query =
        gate.getQuery()
            .replace("$namespace", ws.getMetadata().getNamespace())
            .replace("$name", ws.getMetadata().getName());
    String base = gate.getUrl().endsWith("/") ? gate.getUrl() : gate.getUrl() + "/";
    URI uri =
        URI.create(base + "api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      return PrometheusAnswers.judge(
          query, response.body(), Double.parseDouble(gate.getMaxValue()));
    } catch (IOException e) {
      return new Verdict.Fail(
          "Prometheus at "
              + HumanMessages.bounded(gate.getUrl(), 200)
              + " did not answer the query: "
              + HumanMessages.describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Verdict.Pending("analysis: the Prometheus query was interrupted");
    }
  }
}
