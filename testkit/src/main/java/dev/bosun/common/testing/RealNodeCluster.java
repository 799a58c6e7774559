package dev.bosun.common.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * A control plane with a real {@link LocalNode} joined to it: Pods run as containers. One per JVM
 * through {@link #shared()}, stopped when the JVM exits (and torn down by watchdogs if it is
 * killed).
 */
public final class RealNodeCluster implements AutoCloseable {

  private static RealNodeCluster shared;

  private final LocalControlPlane plane;
  private final LocalNode node;
  private final Path workDir;
  private final boolean keepWorkDir;

  private RealNodeCluster(
      LocalControlPlane plane, LocalNode node, Path workDir, boolean keepWorkDir) {
    this.plane = plane;
    this.node = node;
    this.workDir = workDir;
    this.keepWorkDir = keepWorkDir;
  }

  /** The real-node cluster of this JVM, started on first use. */
  public static synchronized RealNodeCluster shared() {
    if (shared == null) {
      try {
        shared = start(Files.createTempDirectory("bosun-real-node"), false);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      RealNodeCluster cluster = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "real-node-stop"));
    }
    return shared;
  }

  /**
   * Starts a control plane under {@code workDir}/control-plane and a node under {@code
   * workDir}/node.
   */
  public static RealNodeCluster start(Path workDir, boolean keepWorkDir) throws IOException {
    LocalControlPlane plane =
        LocalControlPlane.startForRealNode(workDir.resolve("control-plane"), keepWorkDir);
    try {
      return new RealNodeCluster(
          plane, LocalNode.start(plane, workDir.resolve("node")), workDir, keepWorkDir);
    } catch (RuntimeException e) {
      plane.close();
      throw e;
    }
  }

  /** Starts a cluster under the folder given as the first argument and keeps it until killed. */
  public static void main(String[] args) throws Exception {
    RealNodeCluster cluster = start(Path.of(args[0]), true);
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
    System.out.println("KUBECONFIG=" + cluster.controlPlane().kubeconfig());
    Thread.currentThread().join();
  }

  public LocalControlPlane controlPlane() {
    return plane;
  }

  public LocalNode node() {
    return node;
  }

  /** A new cluster-admin client; the caller closes it. */
  public KubernetesClient adminClient() {
    return plane.adminClient();
  }

  /** Prints the last lines of the control plane's and the node's logs. */
  public void printLogTails(int lines, Consumer<String> out) {
    plane.printLogTails(lines, out);
    node.printLogTails(lines, out);
  }

  @Override
  public synchronized void close() {
    node.close();
    plane.close();
    if (!keepWorkDir) {
      // Imported images and container layers take gigabytes; never delete through a mount that a
      // failed teardown left behind.
      Shell.run(
          "grep -q ' " + workDir + "/' /proc/mounts || rm -rf " + Shell.quote(workDir.toString()));
    }
  }
}
