package dev.bosun.web.reconciler;

import com.sun.net.httpserver.HttpServer;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.CanaryDeploymentDependent;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Two loopback HTTP servers on one port standing in for a WebService's Pods in the canary analysis
 * IT: the stable revision's on 127.0.0.2 answers 200 at once, the canary's on 127.0.0.3 as told.
 */
final class AnswerServers implements AutoCloseable {

  static final String STABLE_HOST = "127.0.0.2";
  static final String CANARY_HOST = "127.0.0.3";

  /** How the canary answers. */
  enum Mode {
    GOOD,
    HALF_ERRORS,
    SLOW
  }

  private static volatile boolean running;

  private final HttpServer stable;
  private final HttpServer canary;
  private final AtomicReference<Mode> mode = new AtomicReference<>(Mode.GOOD);
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger canaryRequests = new AtomicInteger();

  private AnswerServers(HttpServer stable, HttpServer canary) {
    this.stable = stable;
    this.canary = canary;
  }

  static AnswerServers start() throws IOException {
    HttpServer stable = HttpServer.create(new InetSocketAddress(STABLE_HOST, 0), 16);
    HttpServer canary =
        HttpServer.create(new InetSocketAddress(CANARY_HOST, stable.getAddress().getPort()), 16);
    AnswerServers servers = new AnswerServers(stable, canary);
    stable.createContext(
        "/",
        x -> {
          servers.requests.incrementAndGet();
          x.sendResponseHeaders(200, -1);
          x.close();
        });
    canary.createContext(
        "/",
        x -> {
          servers.requests.incrementAndGet();
          int n = servers.canaryRequests.incrementAndGet();
          Mode m = servers.mode.get();
          if (m == Mode.SLOW) {
            try {
              Thread.sleep(2000);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          x.sendResponseHeaders(m == Mode.HALF_ERRORS && n % 2 == 0 ? 500 : 200, -1);
          x.close();
        });
    // Slow answers must not hold up the others: one thread per request, at most a few dozen.
    stable.setExecutor(Executors.newFixedThreadPool(4));
    canary.setExecutor(Executors.newFixedThreadPool(16));
    stable.start();
    canary.start();
    running = true;
    return servers;
  }

  int port() {
    return stable.getAddress().getPort();
  }

  /** Makes the canary answer that way from now on. */
  void canaryAnswers(Mode m) {
    mode.set(m);
    canaryRequests.set(0);
  }

  /** Requests both servers have answered. */
  int requests() {
    return requests.get();
  }

  /**
   * Where the operator's checks of a Pod go: while the servers run, a canary Pod's to the canary
   * server and any other to the stable one; otherwise nowhere (no other test has an analysis).
   */
  static Optional<String> address(Pod pod) {
    if (!running) {
      return Optional.empty();
    }
    boolean isCanary =
        CanaryDeploymentDependent.CANARY.equals(
            pod.getMetadata().getLabels().get(WebServiceOperator.TRACK));
    return Optional.of(isCanary ? CANARY_HOST : STABLE_HOST);
  }

  @Override
  public void close() {
    running = false;
    stable.stop(0);
    canary.stop(0);
    ((java.util.concurrent.ExecutorService) stable.getExecutor()).shutdownNow();
    ((java.util.concurrent.ExecutorService) canary.getExecutor()).shutdownNow();
  }
}
