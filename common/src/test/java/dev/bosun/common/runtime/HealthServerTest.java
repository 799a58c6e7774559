package dev.bosun.common.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The operator's HTTP endpoint on loopback: its own paths and the routes an operator adds. */
class HealthServerTest {

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** A request to the server on loopback (it listens on every address). */
  private static HttpRequest request(HealthServer server, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(5))
        .build();
  }

  private HttpResponse<String> get(HealthServer server, String path) throws Exception {
    return http.send(request(server, path), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpHandler text(String body) {
    return ex -> {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    };
  }

  @Test
  void servesItsOwnPathsAndTheAddedRoutes() throws Exception {
    try (HealthServer server =
        new HealthServer(
            0, () -> true, () -> false, () -> "m 1\n", Map.of("/extra/v1", text("extra\n")))) {
      assertThat(get(server, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(server, "/readyz").statusCode()).isEqualTo(503);
      assertThat(get(server, "/metrics").body()).isEqualTo("m 1\n");
      HttpResponse<String> extra = get(server, "/extra/v1/a/b");
      assertThat(extra.statusCode()).isEqualTo(200);
      assertThat(extra.body()).isEqualTo("extra\n");
    }
  }

  @Test
  void probesAnswerWhileARouteIsBusy() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    HttpHandler slow =
        ex -> {
          entered.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          text("done\n").handle(ex);
        };
    try (HealthServer server =
        new HealthServer(0, () -> true, () -> true, () -> "", Map.of("/slow", slow))) {
      CompletableFuture<HttpResponse<String>> pending =
          http.sendAsync(request(server, "/slow"), HttpResponse.BodyHandlers.ofString());
      assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();

      long start = System.nanoTime();
      assertThat(get(server, "/healthz").statusCode()).isEqualTo(200);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      assertThat(pending).isNotDone();

      release.countDown();
      assertThat(pending.get(5, TimeUnit.SECONDS).body()).isEqualTo("done\n");
    }
  }

  @Test
  void aRouteMayNotTakeTheProbesPathsOrAnotherRoutesPath() {
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build()) {
      OperatorRuntime runtime =
          new OperatorRuntime(OperatorSettings.local("test-operator").withHttpPort(-1), client);
      runtime.route("/extra", text(""));

      assertThatThrownBy(() -> runtime.route("/healthz", text("")))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> runtime.route("extra", text("")))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> runtime.route("/extra", text("")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("already served");
    }
  }
}
