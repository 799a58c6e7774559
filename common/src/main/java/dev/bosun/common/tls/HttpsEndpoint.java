package dev.bosun.common.tls;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.bosun.common.runtime.DaemonThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * A JDK HTTPS server for an operator's routes that carry secrets (a restore token, an admission
 * review): TLS 1.2 or 1.3 only, no plain HTTP on its port, a bounded pool of request threads.
 */
public final class HttpsEndpoint implements AutoCloseable {

  private final HttpsServer server;
  private final ExecutorService executor;

  private HttpsEndpoint(
      int port, SSLContext context, Map<String, HttpHandler> routes, int threads, String name)
      throws IOException {
    server = HttpsServer.create(new InetSocketAddress(port), 16);
    server.setHttpsConfigurator(
        new HttpsConfigurator(context) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters ssl = context.getDefaultSSLParameters();
            ssl.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            params.setSSLParameters(ssl);
          }
        });
    routes.forEach(server::createContext);
    executor = Executors.newFixedThreadPool(threads, DaemonThreads.named(name));
    server.setExecutor(executor);
    server.start();
  }

  /**
   * Serves {@code routes} over TLS with {@code context} on {@code port} (0: a free port), with
   * {@code threads} request threads named after {@code name}.
   */
  public static HttpsEndpoint start(
      int port, SSLContext context, Map<String, HttpHandler> routes, int threads, String name)
      throws IOException {
    return new HttpsEndpoint(port, context, routes, threads, name);
  }

  /** The port it listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
