package dev.bosun.mysql.testing;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.JobPodRuntime;
import dev.bosun.common.testing.PersonText;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One MySQL operator for a test class (on the control plane of {@link ControlPlaneExtension}, which
 * the class extends with first), and for each test a fresh namespace with a fleet of real MariaDB
 * servers standing in for its Pods. Registered as a static {@code @RegisterExtension} field.
 */
public final class MySQLOperatorFixture
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final String namespacePrefix;
  private final Map<String, MariaDbServers.Server> servers = new HashMap<>();
  private MySQLUnderTest mysql;
  private RunningOperator operator;
  private MariaDbServers fleet;
  private String namespace;

  /** A fixture whose test namespaces are named {@code <namespacePrefix>-<random>}. */
  public MySQLOperatorFixture(String namespacePrefix) {
    this.namespacePrefix = namespacePrefix;
  }

  private static JobPodRuntime jobPods;

  /**
   * The runtime of restore Jobs' Pods, one per test JVM: their fetch container runs the operator's
   * fetch main in a JVM of this classpath, their load container the local {@code mariadb} client.
   */
  public static synchronized JobPodRuntime jobPods() {
    if (jobPods == null) {
      jobPods =
          new JobPodRuntime(
                  ControlPlaneExtension.controlPlane().adminClient(),
                  RunningOperator.tempDir("bosun-mysql-job-pods-"),
                  Map.of("sh", "/bin/sh"))
              .start();
    }
    return jobPods;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    ControlPlaneExtension.kubelet();
    jobPods();
    mysql = new MySQLUnderTest();
    operator = mysql.operator.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    operator.close();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    namespace =
        Crds.namespace(
            operator.client,
            namespacePrefix + "-" + UUID.randomUUID().toString().substring(0, 6),
            Map.of(),
            Map.of());
    servers.clear();
    fleet = new MariaDbServers();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    fleet.close();
    try {
      // Every test of the module checks what the operator wrote for people in its namespace.
      PersonText.assertReadable(
          operator.client,
          namespace,
          "mysql.bosun.dev",
          List.of(
              new String[] {"mysql.bosun.dev/v1alpha1", "MySQLCluster"},
              new String[] {"mysql.bosun.dev/v1alpha1", "MySQLBackup"}));
    } finally {
      operator.client.namespaces().withName(namespace).delete();
    }
  }

  /**
   * Starts {@code count} real servers for the Pods {@code <cluster>-0..} of this test's namespace
   * and writes the Secrets their data was made with (operator and replication passwords).
   */
  public void serversFor(String cluster, int count) {
    for (int i = 0; i < count; i++) {
      String pod = cluster + "-" + i;
      MariaDbServers.Server s = fleet.create(pod, 100 + i).start();
      servers.put(pod, s);
      mysql.servers.put(namespace + "/" + pod, s.address());
    }
    secret(cluster + "-operator", MariaDbServers.CREDENTIALS.operatorPassword());
    secret(cluster + "-replication", MariaDbServers.CREDENTIALS.replicationPassword());
  }

  /** A Secret in this test's namespace with one key, {@code password}. */
  public void secret(String name, String password) {
    secret(name, Map.of("password", password));
  }

  /** A Secret in this test's namespace with these keys. */
  public void secret(String name, Map<String, String> data) {
    Crds.secret(operator.client, namespace, name, data);
  }

  /** The running operator (its client, its write log, stop and start). */
  public RunningOperator operator() {
    return operator;
  }

  /** The operator's client. */
  public KubernetesClient client() {
    return operator.client;
  }

  /** What the operator runs against: its server addresses and backup volume. */
  public MySQLUnderTest mysql() {
    return mysql;
  }

  /** The MySQLCluster {@code name} of this test's namespace, or null. */
  public MySQLCluster cluster(String name) {
    return operator
        .client
        .resources(MySQLCluster.class)
        .inNamespace(namespace)
        .withName(name)
        .get();
  }

  /** This test's namespace. */
  public String namespace() {
    return namespace;
  }

  /** This test's fleet of servers. */
  public MariaDbServers fleet() {
    return fleet;
  }

  /** This test's servers by Pod name. */
  public MariaDbServers.Server server(String pod) {
    return servers.get(pod);
  }

  /** Every server of this test. */
  public Iterable<MariaDbServers.Server> servers() {
    return servers.values();
  }
}
