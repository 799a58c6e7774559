package dev.bosun.etcd.testing;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.ReconcileCounter;
import dev.bosun.common.testing.WriteCounter;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.Main;
import dev.bosun.etcd.membership.LoopbackAddressing;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The etcd operator as Main runs it, on the shared control plane, with its members addressed on
 * loopback (each cluster its own 127.0.N.0/24) so that real etcd processes can play the Pods.
 */
public final class RunningOperator implements AutoCloseable {

  public static final String[] CRDS = {"etcdclusters.etcd.bosun.dev", "etcdbackups.etcd.bosun.dev"};

  /** Shared by every operator a test JVM starts: a cluster keeps its subnet across restarts. */
  public static final LoopbackAddressing ADDRESSING = new LoopbackAddressing(101);

  /** The operator's backup volume. */
  public static final Path BACKUP_DIR = createBackupDir();

  public final WriteCounter writes = new WriteCounter();
  public final ReconcileCounter reconciles = new ReconcileCounter();
  public final KubernetesClient client =
      ControlPlaneExtension.controlPlane()
          .adminClient(b -> b.addOrReplaceInterceptor("writes", writes));
  private OperatorRuntime runtime;
  private java.net.URI operatorUrl;
  private final dev.bosun.etcd.membership.MemberAddressing addressing;
  private final java.util.function.UnaryOperator<java.net.URI> route;

  private static Path createBackupDir() {
    try {
      return Files.createTempDirectory("etcd-operator-backups");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public RunningOperator() {
    this(ADDRESSING, java.util.function.UnaryOperator.identity());
  }

  /** An operator with its own addressing, its etcd traffic going where {@code route} says. */
  public RunningOperator(
      dev.bosun.etcd.membership.MemberAddressing addressing,
      java.util.function.UnaryOperator<java.net.URI> route) {
    this.addressing = addressing;
    this.route = route;
    Crds.install(client, CRDS);
  }

  /**
   * Starts the operator with its HTTP port on a free port of this machine, where restoring members
   * (init containers the process kubelet runs here) fetch snapshots of the backup volume.
   */
  public RunningOperator start() {
    int port = LocalProcess.freePort("127.0.0.1");
    operatorUrl = java.net.URI.create("http://127.0.0.1:" + port);
    runtime =
        Main.create(
                OperatorSettings.local(EtcdOperator.NAME).withHttpPort(port),
                client,
                addressing,
                Optional.of(BACKUP_DIR),
                Optional.of(operatorUrl),
                reconciles,
                route)
            .start();
    return this;
  }

  /** The operator's HTTP endpoint (health, metrics, snapshots for restores). */
  public java.net.URI operatorUrl() {
    return operatorUrl;
  }

  @Override
  public void close() {
    if (runtime != null) {
      runtime.close();
      runtime = null;
    }
    client.close();
  }
}
