package dev.bosun.mysql.bench;

import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.mysql.testing.MariaDbServers;
import dev.bosun.mysql.testing.MySQLUnderTest;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a converged, idle MySQLCluster costs the API server: the operator (as Main builds it, on the
 * local control plane, each pod played by a real MariaDB server) runs one cluster to Ready, then
 * its requests other than watches are counted for a while. Health rounds go to the servers, not to
 * the API.
 */
final class IdleCost {

  /** Requests per minute of one idle cluster. */
  record Result(double readsPerMinute, double writesPerMinute, List<String> sample) {}

  private IdleCost() {}

  static Result measure(MariaDbServers fleet, int instances, Duration idle) {
    ControlPlaneExtension.kubelet();
    MySQLUnderTest mysql = new MySQLUnderTest();
    try (RunningOperator operator = mysql.operator.start()) {
      String ns = Crds.namespace(operator.testClient, "bench-idle", Map.of(), Map.of());
      for (int i = 0; i < instances; i++) {
        String pod = "idle-" + i;
        mysql.servers.put(ns + "/" + pod, fleet.create(pod, 200 + i).start().address());
      }
      Crds.secret(
          operator.testClient,
          ns,
          "idle-operator",
          Map.of("password", MariaDbServers.CREDENTIALS.operatorPassword()));
      Crds.secret(
          operator.testClient,
          ns,
          "idle-replication",
          Map.of("password", MariaDbServers.CREDENTIALS.replicationPassword()));
      Crds.createRaw(
          operator.testClient,
          "mysql.bosun.dev/v1alpha1",
          "MySQLCluster",
          ns,
          "idle",
          "flavour: MariaDB\nversion: '10.11'\nreplicas: " + instances);
      await("Ready")
          .atMost(Duration.ofSeconds(120))
          .until(
              () ->
                  ready(
                      operator
                          .testClient
                          .resources(MySQLCluster.class)
                          .inNamespace(ns)
                          .withName("idle")
                          .get()));
      operator.writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(60));
      int reads = operator.writes.readCount();
      List<String> writes = operator.writes.writesDuring(idle);
      List<String> readList = operator.writes.readsSince(reads);
      double minutes = idle.toMillis() / 60_000.0;
      operator.testClient.namespaces().withName(ns).delete();
      return new Result(
          readList.size() / minutes,
          writes.size() / minutes,
          Stream.concat(writes.stream(), readList.stream()).limit(10).toList());
    }
  }

  private static boolean ready(MySQLCluster c) {
    return c != null
        && c.getStatus() != null
        && Conditions.find(c.getStatus().getConditions(), "Ready")
            .map(r -> "True".equals(r.getStatus()))
            .orElse(false);
  }
}
