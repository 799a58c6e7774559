package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.PodExec;
import dev.bosun.common.testing.RealNodeExtension;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A MySQLCluster (MariaDB flavour) of three as real containers from the MySQL operator's own Pod
 * specs (its start and init scripts, its ConfigMap, its generated Secrets), run by the operator's
 * chart Pods: a writer in another Pod writes through the primary Service's name; the primary's
 * container hangs (frozen, as a hung machine: a killed container is restarted in place by the
 * kubelet within a second, which is no failover); the operator fails over, the writer reconnects
 * through the same name, every acknowledged row is on the new primary; the old primary's container
 * is then killed and comes back as a replica, never writable.
 */
@ExtendWith(RealNodeExtension.class)
class RealNodeMySqlIT {

  private static final String NS = "db-team";
  private static RealNodePlatform platform;
  private static KubernetesClient admin;

  @BeforeAll
  static void install() {
    platform = RealNodePlatform.shared();
    admin = platform.admin();
    platform
        .cluster()
        .node()
        .tagImage(platform.cluster().node().workloadsImage(), RealNodeSamples.MARIADB_IMAGE);
    RealNodePods.namespace(admin, NS, Map.of());
  }

  @Test
  void hungPrimaryFailsOverAndEveryAcknowledgedRowIsOnTheNewPrimary() {
    admin
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: mysql.bosun.dev/v1alpha1
                kind: MySQLCluster
                metadata: {name: db, namespace: %s}
                spec:
                  replicas: 3
                  flavour: MariaDB
                  version: "10.11"
                  image: %s
                  storage: {size: 512Mi}
                  failover: {primaryUnavailableSeconds: 10}
                """
                    .formatted(NS, RealNodeSamples.MARIADB_IMAGE),
                GenericKubernetesResource.class))
        .create();
    await("MySQLCluster db Ready with three MariaDB containers")
        .atMost(Duration.ofMinutes(6))
        .pollInterval(Duration.ofSeconds(2))
        .until(() -> Resources.ready(cluster()) && readyPods() == 3);
    String primary = String.valueOf(status().get("primary"));

    RealNodePods.run(
        admin,
        NS,
        RealNodePods.shell(
            "writer",
            platform.cluster().node().workloadsImage(),
            Map.of("ROOT_PASSWORD", rootPassword())));
    sql("CREATE DATABASE IF NOT EXISTS app; CREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY)");

    CompletableFuture<PodExec.Result> writes =
        CompletableFuture.supplyAsync(
            () ->
                PodExec.sh(
                    admin,
                    NS,
                    "writer",
                    Duration.ofMinutes(5),
                    // Bounded: 3000 inserts or 4 minutes; stops early when /tmp/stop appears.
                    "i=0; end=$(( $(date +%s) + 240 ));"
                        + " while [ $i -lt 3000 ] && [ $(date +%s) -lt $end ] && [ ! -f /tmp/stop ]; do"
                        + " if mariadb -h db-primary -uroot -p\"$ROOT_PASSWORD\" --connect-timeout=2"
                        + " -e \"INSERT INTO app.t VALUES ($i)\" >/dev/null 2>&1; then echo ack $i;"
                        + " else echo fail $i; sleep 0.2; fi; i=$((i+1)); done; echo done"));
    await("some acknowledged rows before the kill")
        .atMost(Duration.ofMinutes(1))
        .until(() -> count() > 20);

    Instant hung = Instant.now();
    String oldContainer = containerId(primary);
    platform.cluster().node().pauseContainer(oldContainer);
    try {
      await("a new primary reached through db-primary")
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> !primary.equals(String.valueOf(status().get("primary"))) && count() > 0);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      System.err.println("[e2e] MySQLCluster status: " + status());
      platform.pods("mysql").forEach(platform::describe);
      throw e;
    }
    long seconds = Duration.between(hung, Instant.now()).toSeconds();
    // The hung old primary is killed (a frozen task dies at once); the kubelet restarts its
    // container on its data, and it must come back as a read-only member.
    platform.cluster().node().killContainer(oldContainer);
    // Let the writer go on through the same Service name after the failover.
    long after = count();
    await("the writer to write through the new primary")
        .atMost(Duration.ofMinutes(1))
        .until(() -> count() > after + 20);
    PodExec.sh(admin, NS, "writer", Duration.ofSeconds(10), "touch /tmp/stop");
    String out = writes.join().stdout();
    await("the cluster Ready again, the old primary back as a read-only member")
        .atMost(Duration.ofMinutes(4))
        .pollInterval(Duration.ofSeconds(2))
        .until(() -> Resources.ready(cluster()) && readyPods() == 3);
    assertThat(
            PodExec.sh(
                    admin,
                    NS,
                    "writer",
                    Duration.ofSeconds(30),
                    "mariadb -h "
                        + primary
                        + ".db-headless -uroot -p\"$ROOT_PASSWORD\" --connect-timeout=3 -N -e 'SELECT @@read_only'")
                .stdout()
                .trim())
        .as("the old primary is read-only")
        .isEqualTo("1");
    Set<Integer> acked = RealNodePods.numbered(out, "ack");
    Set<Integer> stored = new HashSet<>();
    Matcher m = Pattern.compile("(?m)^(\\d+)$").matcher(sql("SELECT id FROM app.t"));
    while (m.find()) {
      stored.add(Integer.parseInt(m.group(1)));
    }
    Set<Integer> lost = new HashSet<>(acked);
    lost.removeAll(stored);
    System.err.printf(
        "[e2e] MariaDB primary %s hung: new primary %s after %d s; %d rows acknowledged,"
            + " %d failed attempts, %d lost%n",
        primary,
        status().get("primary"),
        seconds,
        acked.size(),
        RealNodePods.numbered(out, "fail").size(),
        lost.size());
    assertThat(lost).as("acknowledged rows missing on the new primary").isEmpty();
  }

  private long count() {
    String out = sql("SELECT COUNT(*) FROM app.t").trim();
    return out.matches("\\d+") ? Long.parseLong(out) : -1;
  }

  /** Runs SQL through the primary Service from the writer Pod; the output without headers. */
  private String sql(String statements) {
    return PodExec.sh(
            admin,
            NS,
            "writer",
            Duration.ofSeconds(30),
            "mariadb -h db-primary -uroot -p\"$ROOT_PASSWORD\" --connect-timeout=3 -N -e '"
                + statements
                + "'")
        .stdout();
  }

  private String containerId(String pod) {
    Pod p = admin.pods().inNamespace(NS).withName(pod).get();
    return p.getStatus()
        .getContainerStatuses()
        .get(0)
        .getContainerID()
        .replaceFirst("^containerd://", "");
  }

  private GenericKubernetesResource cluster() {
    return Resources.get(admin, "mysql.bosun.dev/v1alpha1", "MySQLCluster", NS, "db");
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> status() {
    Object status = cluster().getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> ? (Map<String, Object>) status : Map.of();
  }

  private long readyPods() {
    return admin
        .pods()
        .inNamespace(NS)
        .withLabel("app.kubernetes.io/instance", "db")
        .list()
        .getItems()
        .stream()
        .filter(RealNodePods::ready)
        .count();
  }

  private String rootPassword() {
    return new String(
        Base64.getDecoder()
            .decode(
                admin
                    .secrets()
                    .inNamespace(NS)
                    .withName("db-root")
                    .get()
                    .getData()
                    .get("password")),
        StandardCharsets.UTF_8);
  }
}
