package dev.bosun.e2e;

import dev.bosun.etcd.membership.LoopbackAddressing;
import dev.bosun.etcd.membership.MemberAddressing;
import dev.bosun.etcd.testing.ProcessKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stateful workloads' Pods on the local control plane, where no container runs: etcd member
 * Pods become real etcd processes (the etcd module's ProcessKubelet), addressed on loopback. On
 * kind the Pods run their images and the operators use Service DNS names instead.
 */
final class LocalWorkloads implements AutoCloseable {

  /** How the etcd operator reaches members: a 127.0.N.0/24 per cluster. */
  static final MemberAddressing ETCD_ADDRESSING = new LoopbackAddressing(150);

  private final KubernetesClient admin;
  private final Path root;
  private final Map<String, ProcessKubelet> etcdKubelets = new ConcurrentHashMap<>();
  private final Path etcdBackups;

  LocalWorkloads(KubernetesClient admin) {
    this.admin = admin;
    try {
      this.root = Files.createTempDirectory("bosun-e2e-workloads");
      this.etcdBackups = Files.createDirectories(root.resolve("etcd-backups"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The etcd operator's backup volume. */
  Path etcdBackups() {
    return etcdBackups;
  }

  /** Runs the etcd member Pods of {@code namespace} as etcd processes (once per namespace). */
  void runEtcdMembersIn(String namespace) {
    etcdKubelets.computeIfAbsent(
        namespace, ns -> new ProcessKubelet(admin, ns, root.resolve("etcd-" + ns)).start());
  }

  @Override
  public void close() {
    etcdKubelets.values().forEach(ProcessKubelet::close);
  }
}
