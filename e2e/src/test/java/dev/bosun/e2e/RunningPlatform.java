package dev.bosun.e2e;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.WriteCounter;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The operators of the release running in this JVM, each configured by its chart's environment and
 * authenticated as its chart's ServiceAccount, so the API server enforces the charts' RBAC. All
 * their requests pass one write counter.
 */
final class RunningPlatform implements AutoCloseable {

  /** Each operator's Main, as its container runs it (configured by environment variables). */
  private static final Map<
          String, BiFunction<Map<String, String>, KubernetesClient, OperatorRuntime>>
      MAINS =
          Map.of(
              "webservice", dev.bosun.web.Main::create,
              "configsync", dev.bosun.config.Main::create);

  /** Writes of the operators, leader-election renewals aside. */
  final WriteCounter writes = WriteCounter.excludingLeaderElection();

  private final PlatformRelease release;
  private final List<String> operators;
  private final Map<String, KubernetesClient> clients = new LinkedHashMap<>();
  private final Map<String, OperatorRuntime> runtimes = new LinkedHashMap<>();

  RunningPlatform(PlatformRelease release, List<String> operators) {
    this.release = release;
    this.operators = operators;
    for (String operator : operators) {
      clients.put(
          operator, release.clientAs(operator, b -> b.addOrReplaceInterceptor("writes", writes)));
    }
  }

  /** Starts every operator (each waits for its informers, which fails on a missing permission). */
  RunningPlatform start() {
    for (String operator : operators) {
      Map<String, String> env = new LinkedHashMap<>(release.environment(operator));
      env.put(OperatorSettings.HTTP_PORT, "0"); // many operators in one JVM: free ports
      runtimes.put(operator, MAINS.get(operator).apply(env, clients.get(operator)).start());
    }
    return this;
  }

  /** Stops every operator, as a rolling restart of their Deployments would. */
  void stop() {
    runtimes.values().forEach(OperatorRuntime::close);
    runtimes.clear();
  }

  @Override
  public void close() {
    stop();
    clients.values().forEach(KubernetesClient::close);
  }
}
