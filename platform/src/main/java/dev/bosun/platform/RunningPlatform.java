package dev.bosun.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.WriteCounter;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.mysql.MySQLOperator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The operators of the release, running. On the local control plane they run in this JVM, each
 * configured by its chart's environment and authenticated as its chart's ServiceAccount, so the API
 * server enforces the charts' RBAC, and all their requests pass one write counter. On kind (-Pkind)
 * they are the charts' Deployments, started and stopped by scaling.
 */
public final class RunningPlatform implements AutoCloseable {

  /**
   * Each operator's Main, as its container runs it (configured by environment variables); the
   * stateful operators reach their members on loopback, where {@link LocalWorkloads} runs them.
   */
  private final Map<String, BiFunction<Map<String, String>, KubernetesClient, OperatorRuntime>>
      mains;

  /** The workloads' Pods as local processes (on the local control plane only). */
  final LocalWorkloads workloads;

  /** Writes of the in-process operators, leader-election renewals aside. */
  final WriteCounter writes = WriteCounter.excludingLeaderElection();

  private final PlatformRelease release;
  private final List<String> operators;
  private final Map<String, KubernetesClient> clients = new LinkedHashMap<>();
  private final Map<String, OperatorRuntime> runtimes = new LinkedHashMap<>();

  public RunningPlatform(PlatformRelease release, List<String> operators) {
    this.release = release;
    this.operators = operators;
    this.workloads =
        release.cluster().operatorsInCluster() ? null : new LocalWorkloads(release.admin());
    this.mains =
        Map.of(
            "webservice",
            dev.bosun.web.Main::create,
            "configsync",
            dev.bosun.config.Main::create,
            "etcd",
            (env, client) ->
                dev.bosun.etcd.Main.create(
                    OperatorSettings.fromMap(EtcdOperator.NAME, env),
                    client,
                    LocalWorkloads.ETCD_ADDRESSING,
                    Optional.of(workloads.etcdBackups()),
                    null),
            "mysql",
            (env, client) ->
                dev.bosun.mysql.Main.create(
                    OperatorSettings.fromMap(MySQLOperator.NAME, env),
                    client,
                    workloads.mysqlAddressing,
                    dev.bosun.mysql.Main.pollInterval(env),
                    workloads.mysqlBackups()));
    if (!release.cluster().operatorsInCluster()) {
      for (String operator : operators) {
        clients.put(
            operator, release.clientAs(operator, b -> b.addOrReplaceInterceptor("writes", writes)));
      }
    }
  }

  /** Starts every operator (each waits for its informers, which fails on a missing permission). */
  public RunningPlatform start() {
    if (release.cluster().operatorsInCluster()) {
      scale(1);
      return this;
    }
    try {
      for (String operator : operators) {
        Map<String, String> env = new LinkedHashMap<>(release.environment(operator));
        env.put(OperatorSettings.HTTP_PORT, "0"); // many operators in one JVM: free ports
        runtimes.put(operator, mains.get(operator).apply(env, clients.get(operator)).start());
      }
    } catch (RuntimeException e) {
      // Half a platform must not keep running (and holding Leases) after a failed start.
      stop();
      throw e;
    }
    return this;
  }

  /** Stops every operator, as a rolling restart of their Deployments would. */
  public void stop() {
    if (release.cluster().operatorsInCluster()) {
      scale(0);
      return;
    }
    runtimes.values().forEach(OperatorRuntime::close);
    runtimes.clear();
  }

  /**
   * Asserts that the converged operators write nothing for {@code period}. In-process every write
   * request is counted; on kind, where the operators' requests cannot be seen, no object in {@code
   * namespaces} may change (resourceVersion) instead.
   */
  public void assertIdle(Duration period, String... namespaces) {
    if (!release.cluster().operatorsInCluster()) {
      writes.awaitQuiet(Duration.ofSeconds(5), Duration.ofSeconds(60));
      assertThat(writes.writesDuring(period)).isEmpty();
      return;
    }
    Map<String, String> before = versions(namespaces);
    await().pollDelay(period).atMost(period.plusSeconds(5)).until(() -> true);
    assertThat(versions(namespaces)).isEqualTo(before);
  }

  private Map<String, String> versions(String... namespaces) {
    KubernetesClient admin = release.admin();
    return Stream.of(namespaces)
        .flatMap(
            ns ->
                Stream.of(
                        admin.apps().deployments().inNamespace(ns).list().getItems(),
                        admin.apps().statefulSets().inNamespace(ns).list().getItems(),
                        admin.services().inNamespace(ns).list().getItems(),
                        admin.configMaps().inNamespace(ns).list().getItems(),
                        admin.secrets().inNamespace(ns).list().getItems())
                    .flatMap(List::stream)
                    .map(HasMetadata.class::cast))
        .collect(
            Collectors.toMap(
                o ->
                    o.getKind()
                        + "/"
                        + o.getMetadata().getNamespace()
                        + "/"
                        + o.getMetadata().getName(),
                o -> o.getMetadata().getResourceVersion()));
  }

  private void scale(int replicas) {
    KubernetesClient admin = release.admin();
    for (String operator : operators) {
      String name = release.deployment(operator).getMetadata().getName();
      admin
          .apps()
          .deployments()
          .inNamespace(PlatformRelease.NAMESPACE)
          .withName(name)
          .scale(replicas);
    }
    await("the operators' Deployments at " + replicas)
        .atMost(Duration.ofMinutes(3))
        .until(
            () ->
                operators.stream()
                    .map(release::deployment)
                    .allMatch(
                        d ->
                            replicas == 0
                                ? d.getStatus() == null
                                    || d.getStatus().getReplicas() == null
                                    || d.getStatus().getReplicas() == 0
                                : d.getStatus() != null
                                    && Integer.valueOf(replicas)
                                        .equals(d.getStatus().getReadyReplicas())));
  }

  @Override
  public void close() {
    if (!release.cluster().operatorsInCluster()) {
      stop();
      clients.values().forEach(KubernetesClient::close);
      workloads.close();
    }
  }

  /**
   * Gives MySQLCluster {@code cluster} in {@code namespace} real servers for its {@code instances}
   * (local control plane; on kind its Pods run the server images).
   */
  public void runMySqlInstances(String namespace, String cluster, int instances) {
    if (workloads != null) {
      workloads.runMySqlInstances(namespace, cluster, instances);
    }
  }

  /** Makes the member Pods of {@code namespace} run (local control plane; on kind they do). */
  public void runWorkloadsIn(String namespace) {
    if (workloads != null) {
      workloads.runEtcdMembersIn(namespace);
    }
  }
}
