package dev.bosun.platform;

import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.ScratchDirectories;
import dev.bosun.etcd.plan.LoopbackAddressing;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Addressing;
import dev.bosun.mysql.testing.MariaDbServers;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stateful workloads' Pods on the local control plane, where no container runs: etcd member
 * Pods become real etcd processes (the etcd module's ProcessKubelet), and the instances of a
 * MySQLCluster real MariaDB servers started before the cluster with the Secrets their data was made
 * with (as the MySQL module's tests do), all on loopback. On kind the Pods run their images and the
 * operators use Service DNS names instead.
 */
public final class LocalWorkloads implements AutoCloseable {

  /** How the etcd operator reaches members: a 127.0.N.0/24 per cluster. */
  public static final MemberAddressing ETCD_ADDRESSING = new LoopbackAddressing(150);

  private final KubernetesClient admin;
  private final Path root;
  private final Map<String, ProcessKubelet> etcdKubelets = new ConcurrentHashMap<>();
  private final Path etcdBackups;
  private final Path mysqlBackups;
  private final MariaDbServers mariadb = new MariaDbServers();
  private final Map<String, Address> mysqlServers = new ConcurrentHashMap<>();

  /** How the MySQL operator reaches instances: the servers started for them, else nowhere. */
  final Addressing mysqlAddressing =
      (ns, cluster, pod, port) ->
          mysqlServers.getOrDefault(ns + "/" + pod, new Address("127.0.0.1", 1));

  LocalWorkloads(KubernetesClient admin) {
    this.admin = admin;
    try {
      this.root = Files.createTempDirectory("bosun-e2e-workloads");
      this.etcdBackups = Files.createDirectories(root.resolve("etcd-backups"));
      this.mysqlBackups = Files.createDirectories(root.resolve("mysql-backups"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The etcd operator's backup volume. */
  Path etcdBackups() {
    return etcdBackups;
  }

  /** The MySQL operator's backup volume. */
  Path mysqlBackups() {
    return mysqlBackups;
  }

  /**
   * Starts MariaDB servers for the {@code instances} Pods of MySQLCluster {@code cluster} in {@code
   * namespace}, and the operator and replication Secrets their data directories were made with;
   * create the MySQLCluster afterwards.
   */
  void runMySqlInstances(String namespace, String cluster, int instances) {
    for (int i = 0; i < instances; i++) {
      String pod = cluster + "-" + i;
      MariaDbServers.Server server = mariadb.create(namespace + "-" + pod, 100 + i).start();
      mysqlServers.put(namespace + "/" + pod, server.address());
    }
    secret(namespace, cluster + "-operator", MariaDbServers.CREDENTIALS.operatorPassword());
    secret(namespace, cluster + "-replication", MariaDbServers.CREDENTIALS.replicationPassword());
  }

  private void secret(String namespace, String name, String password) {
    Crds.secret(admin, namespace, name, Map.of("password", password));
  }

  /** Runs the etcd member Pods of {@code namespace} as etcd processes (once per namespace). */
  void runEtcdMembersIn(String namespace) {
    etcdKubelets.computeIfAbsent(
        namespace, ns -> new ProcessKubelet(admin, ns, root.resolve("etcd-" + ns)).start());
  }

  @Override
  public void close() {
    etcdKubelets.values().forEach(ProcessKubelet::close);
    mariadb.close();
    ScratchDirectories.deleteQuietly(root);
  }
}
