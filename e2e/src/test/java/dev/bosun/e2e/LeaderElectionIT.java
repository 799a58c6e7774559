package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.platform.E2eCluster;
import dev.bosun.platform.PlatformRelease;
import dev.bosun.platform.Resources;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances of one operator: exactly one reconciles; kill the leader and the other takes over
 * within the Lease. On the local control plane each instance is a JVM of its own running Main under
 * the chart's ServiceAccount (killed with kill -9); on kind they are two Pods of the chart's
 * Deployment (the leader's Pod deleted without grace).
 */
@ExtendWith(E2eClusterExtension.class)
class LeaderElectionIT {

  private static final int LEASE_SECONDS = 5;
  private static final String LEADER = "bosun-webservice-operator is now the leader";

  @TempDir Path dir;

  private LocalProcess instance(PlatformRelease release, String name) {
    Map<String, String> env = new LinkedHashMap<>(release.environment("webservice"));
    env.put(OperatorSettings.HTTP_PORT, "0");
    env.put(OperatorSettings.LEASE_DURATION_SECONDS, Integer.toString(LEASE_SECONDS));
    // The fabric8 client inside the pod would read the mounted ServiceAccount token; here the
    // same token comes through the client's environment variables.
    env.put("KUBERNETES_MASTER", ((E2eCluster.Local) release.cluster()).plane().serverUrl());
    env.put("KUBERNETES_AUTH_TOKEN", release.token("webservice"));
    env.put("KUBERNETES_TRUST_CERTIFICATES", "true");
    env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
    env.put("HOSTNAME", name);
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return LocalProcess.start(
        name,
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            classpath,
            "dev.bosun.web.Main"),
        dir.resolve(name + ".log"),
        env);
  }

  private static boolean leads(LocalProcess p) {
    try {
      return Files.readString(p.log()).contains(LEADER);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until the instance logs {@code text}; fails with its log if it does not, or dies. */
  private static void awaitLog(LocalProcess p, String text, Duration timeout) {
    try {
      await(p + " to log '" + text + "'")
          .atMost(timeout)
          .until(
              () -> {
                if (!p.isAlive()) {
                  throw new IllegalStateException(p + " exited:\n" + p.logTail(40));
                }
                return Files.readString(p.log()).contains(text);
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; its log ends with:\n" + p.logTail(40), e);
    }
  }

  private static void awaitReady(KubernetesClient admin, String ns, String name) {
    await(name + " Ready")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                Resources.ready(
                    Resources.get(admin, "web.bosun.dev/v1alpha1", "WebService", ns, name)));
  }

  private static void webService(KubernetesClient admin, String ns, String name) {
    Resources.apply(
        admin,
        ns,
        """
        apiVersion: web.bosun.dev/v1alpha1
        kind: WebService
        metadata: {name: %s}
        spec:
          image: registry.example.com/%s:1.0.0
          ports: [{name: http, port: 80, containerPort: 8080}]
        """
            .formatted(name, name));
  }

  @Test
  void oneInstanceLeadsAndTheOtherTakesOverWhenItIsKilled() {
    PlatformRelease release = PlatformRelease.shared();
    if (release.cluster().operatorsInCluster()) {
      podsTakeOver(release);
      return;
    }
    KubernetesClient admin = release.admin();
    String ns = Crds.namespace(admin, "leader-" + System.nanoTime() % 100000, Map.of(), Map.of());

    LocalProcess first = instance(release, "operator-a");
    awaitLog(first, LEADER, Duration.ofSeconds(60));
    LocalProcess second = instance(release, "operator-b");
    try {
      await("operator-b to start and see the leader")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  Files.readString(second.log())
                      .contains("leader of bosun-webservice-operator is operator-a"));
      webService(admin, ns, "before");
      awaitReady(admin, ns, "before");
      assertThat(leads(second)).as("operator-b leads while operator-a is alive").isFalse();
      assertThat(leads(first)).isTrue();

      Instant killed = Instant.now();
      first.kill();
      await("operator-b to take over")
          .atMost(Duration.ofSeconds(LEASE_SECONDS * 3L))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> leads(second));
      Duration takeover = Duration.between(killed, Instant.now());
      System.err.printf(
          "[leader-election] takeover %d ms after kill -9 (lease %d s)%n",
          takeover.toMillis(), LEASE_SECONDS);
      // Within the Lease (plus one retry period and the log's own delay).
      assertThat(takeover).isLessThanOrEqualTo(Duration.ofSeconds(LEASE_SECONDS + 4));

      webService(admin, ns, "after");
      awaitReady(admin, ns, "after");
    } finally {
      first.kill();
      second.stop();
    }
  }

  /** On kind: two replicas of the chart's Deployment; the leader's Pod is deleted without grace. */
  private static void podsTakeOver(PlatformRelease release) {
    KubernetesClient admin = release.admin();
    String ns = Crds.namespace(admin, "leader-" + System.nanoTime() % 100000, Map.of(), Map.of());
    var deployments = admin.apps().deployments().inNamespace(PlatformRelease.NAMESPACE);
    String name = release.deployment("webservice").getMetadata().getName();
    deployments.withName(name).scale(2);
    try {
      await("two ready operator Pods")
          .atMost(Duration.ofMinutes(3))
          .until(
              () ->
                  Integer.valueOf(2)
                      .equals(deployments.withName(name).get().getStatus().getReadyReplicas()));
      var lease =
          admin
              .leases()
              .inNamespace(PlatformRelease.NAMESPACE)
              .withName("bosun-webservice-operator-leader");
      String leader =
          await("a leader")
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> lease.get() == null ? null : lease.get().getSpec().getHolderIdentity(),
                  h -> h != null);
      int leaseSeconds = lease.get().getSpec().getLeaseDurationSeconds();
      webService(admin, ns, "before");
      awaitReady(admin, ns, "before");

      Instant killed = Instant.now();
      admin
          .pods()
          .inNamespace(PlatformRelease.NAMESPACE)
          .withName(leader)
          .withGracePeriod(0)
          .delete();
      String next =
          await("another Pod to take the Lease")
              .atMost(Duration.ofSeconds(leaseSeconds * 3L))
              .until(
                  () -> lease.get().getSpec().getHolderIdentity(),
                  h -> h != null && !h.equals(leader));
      Duration takeover = Duration.between(killed, Instant.now());
      System.err.printf(
          "[leader-election] %s took over from %s in %d ms (lease %d s)%n",
          next, leader, takeover.toMillis(), leaseSeconds);
      assertThat(takeover).isLessThanOrEqualTo(Duration.ofSeconds(leaseSeconds + 4));
      webService(admin, ns, "after");
      awaitReady(admin, ns, "after");
    } finally {
      deployments.withName(name).scale(1); // as the chart installed it
    }
  }
}
