package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.bosun.common.testing.LocalProcess;
import dev.bosun.web.WebServices;
import dev.bosun.web.rollout.CanaryJudge.Verdict;
import dev.bosun.web.v1alpha1.WebService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Prometheus gate against Debian's Prometheus server (package prometheus), on loopback. */
class PrometheusGateIT {

  private static final Path BINARY = Path.of("/usr/bin/prometheus");
  private static LocalProcess prometheus;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(Files.isExecutable(BINARY), "Debian's prometheus package is not installed");
    Path dir = Files.createTempDirectory("bosun-prometheus");
    Path config = dir.resolve("prometheus.yml");
    // No scrape targets: the queries are constant expressions, evaluated by the real engine.
    Files.writeString(config, "global: {scrape_interval: 15s}\n");
    int port = LocalProcess.freePort("127.0.0.1");
    prometheus =
        LocalProcess.start(
                "prometheus",
                List.of(
                    BINARY.toString(),
                    "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"),
                    "--web.listen-address=127.0.0.1:" + port),
                dir.resolve("prometheus.log"))
            .awaitPort("127.0.0.1", port, Duration.ofSeconds(30));
    url = "http://127.0.0.1:" + port;
    // The port opens before the TSDB is ready, and until then the API answers 503.
    var client = java.net.http.HttpClient.newHttpClient();
    var ready = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/-/ready")).build();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                client
                        .send(ready, java.net.http.HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200);
  }

  @AfterAll
  static void stop() {
    if (prometheus != null) {
      prometheus.close();
    }
  }

  private static Verdict ask(String query, String maxValue) {
    WebService ws =
        WebServices.fromYaml(
            "shop",
            """
            image: nginx
            ports: [{port: 80}]
            replicas: 2
            rollout:
              canary:
                steps: [{weight: 50}]
                analysis:
                  http: {path: /}
                  prometheus: {url: %s, query: '%s', maxValue: "%s"}
            """
                .formatted(url, query, maxValue));
    ws.getMetadata().setNamespace("team-a");
    return new PrometheusGate()
        .verdict(
            "team-a/shop",
            "rev@0",
            ws,
            ws.getSpec().getRollout().getCanary().getAnalysis().getPrometheus());
  }

  @Test
  void aValueWithinTheMaximumPassesAndOneAboveFails() {
    assertThat(ask("vector(0.004)", "0.01"))
        .isInstanceOf(Verdict.Pass.class)
        .extracting(Verdict::message)
        .isEqualTo("the Prometheus query vector(0.004) gave 0.004000 (at most 0.01000 passes)");
    assertThat(ask("scalar(vector(0.25))", "0.01"))
        .isInstanceOf(Verdict.Fail.class)
        .extracting(Verdict::message)
        .isEqualTo(
            "the Prometheus query scalar(vector(0.25)) gave 0.2500 (at most 0.01000 passes)");
  }

  @Test
  void theWebServicesNamesAreFilledIn() {
    assertThat(ask("count(up{namespace=\"$namespace\", service=\"$name\"}) or vector(0)", "0"))
        .isInstanceOf(Verdict.Pass.class)
        .extracting(Verdict::message)
        .asString()
        .contains("up{namespace=\"team-a\", service=\"shop\"}");
  }

  @Test
  void aQueryWithoutOneNumberOrWithAnErrorFails() {
    assertThat(ask("up", "1").message()).endsWith("gave no single number (0 series)");
    assertThat(ask("sum(", "1").message()).startsWith("the Prometheus query sum( failed: ");
  }

  @Test
  void aServerThatDoesNotAnswerFails() {
    String saved = url;
    url = "http://127.0.0.1:" + LocalProcess.freePort("127.0.0.1");
    try {
      assertThat(ask("vector(0)", "1").message())
          .startsWith("Prometheus at " + url + " did not answer the query: ");
    } finally {
      url = saved;
    }
  }
}
