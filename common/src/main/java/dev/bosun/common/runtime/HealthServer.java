package dev.bosun.common.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Serves /healthz, /readyz and /metrics for the kubelet's probes and for Prometheus. */
final class HealthServer implements AutoCloseable {

  private final HttpServer server;

  HealthServer(int port, BooleanSupplier live, BooleanSupplier ready, Supplier<String> metrics)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 16);
    server.createContext("/healthz", ex -> answer(ex, live.getAsBoolean(), "ok\n", "text/plain"));
    server.createContext("/readyz", ex -> answer(ex, ready.getAsBoolean(), "ok\n", "text/plain"));
    server.createContext(
        "/metrics",
        ex -> answer(ex, true, metrics.get(), "text/plain; version=0.0.4; charset=utf-8"));
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "health-server");
              t.setDaemon(true);
              return t;
            }));
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
  }
}
