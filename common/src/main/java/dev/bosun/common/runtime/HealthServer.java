package dev.bosun.common.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Serves /healthz, /readyz and /metrics for the kubelet's probes and for Prometheus, and the routes
 * an operator adds (for example the etcd operator's snapshots for restoring members).
 */
final class HealthServer implements AutoCloseable {

  /** Paths the server answers itself; an operator's route may not take them. */
  static final Set<String> OWN_PATHS = Set.of("/healthz", "/readyz", "/metrics");

  /**
   * Request threads: more than one, so that a long response on an operator's route (which limits
   * its own concurrency below this) never keeps the kubelet's probes waiting.
   */
  static final int THREADS = 6;

  private final HttpServer server;
  private final ExecutorService executor;

  HealthServer(int port, BooleanSupplier live, BooleanSupplier ready, Supplier<String> metrics)
      throws IOException {
    this(port, live, ready, metrics, Map.of());
  }

  HealthServer(
      int port,
      BooleanSupplier live,
      BooleanSupplier ready,
      Supplier<String> metrics,
      Map<String, HttpHandler> routes)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 16);
    server.createContext("/healthz", ex -> answer(ex, live.getAsBoolean(), "ok\n", "text/plain"));
    server.createContext("/readyz", ex -> answer(ex, ready.getAsBoolean(), "ok\n", "text/plain"));
    server.createContext(
        "/metrics",
        ex -> answer(ex, true, metrics.get(), "text/plain; version=0.0.4; charset=utf-8"));
    routes.forEach(server::createContext);
    executor = Executors.newFixedThreadPool(THREADS, DaemonThreads.named("health-server"));
    server.setExecutor(executor);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange ex, boolean ok, String body, String contentType)
      throws IOException {
    byte[] bytes = (ok ? body : "not ready\n").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.sendResponseHeaders(ok ? 200 : 503, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
