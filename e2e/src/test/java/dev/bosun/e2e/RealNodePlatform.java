package dev.bosun.e2e;

import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.common.testing.RealNodeCluster;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The umbrella chart installed on the real node, the operators running as the charts' Deployments
 * (two replicas each, one leading) from their own images: Jib builds them on the Debian JRE base
 * ({@code -Pnode-image}) and they are imported into the node's containerd under the references the
 * charts default to, so the chart is installed with its defaults plus the replica count.
 */
final class RealNodePlatform {

  static final int REPLICAS = 2;
  private static RealNodePlatform shared;

  private final RealNodeCluster cluster;
  private final KubernetesClient admin;
  private final int replicas;

  private RealNodePlatform(RealNodeCluster cluster, int replicas) {
    this.cluster = cluster;
    this.admin = cluster.adminClient();
    this.replicas = replicas;
  }

  /** The platform of this JVM, installed on first use with {@link #REPLICAS} Pods per operator. */
  static synchronized RealNodePlatform shared() {
    if (shared == null) {
      shared = install(RealNodeCluster.shared(), REPLICAS);
    }
    return shared;
  }

  /** Imports the operator images into the node and installs the chart with {@code replicas}. */
  static RealNodePlatform install(RealNodeCluster cluster, int replicas) {
    RealNodePlatform platform = new RealNodePlatform(cluster, replicas);
    platform.importOperatorImages();
    platform.install();
    return platform;
  }

  /** The operator images Jib wrote with {@code -Pnode-image}, one per operator module. */
  static Path operatorImage(String operator) {
    Path tar = LocalControlPlane.repoRoot().resolve(operator + "-operator/target/jib-image.tar");
    if (!Files.exists(tar)) {
      throw new IllegalStateException(
          tar
              + " is missing: the operator images are built by `mvn -Pnode-image package`"
              + " (./bosun test and ./bosun up pass it)");
    }
    return tar;
  }

  private void importOperatorImages() {
    for (String operator : PlatformChart.OPERATORS) {
      String reference = cluster.node().importImage(operatorImage(operator));
      System.err.println("[e2e] imported " + reference + " into the node");
    }
  }

  /**
   * The claim the MySQL operator's chart mounts as its backup volume (it takes an existing one).
   */
  static final String MYSQL_BACKUP_CLAIM = "mysql-backups";

  private void install() {
    createMySqlBackupClaim();
    InstallCommand install =
        new Helm(PlatformChart.dir())
            .install()
            .withName(PlatformRelease.RELEASE)
            .withNamespace(PlatformRelease.NAMESPACE)
            .createNamespace()
            .withKubeConfig(cluster.controlPlane().kubeconfig());
    for (String operator : PlatformChart.OPERATORS) {
      install.set(operator + ".replicaCount", Integer.toString(replicas));
    }
    // Backups to a volume: the etcd chart creates its claim, the MySQL chart mounts ours.
    install.set("etcd.backup.volume.enabled", "true");
    install.set("etcd.backup.volume.size", "1Gi");
    install.set("mysql.backupVolume.claimName", MYSQL_BACKUP_CLAIM);
    install.call();
    try {
      await("every operator Deployment to have " + replicas + " ready Pods running its image")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> PlatformChart.OPERATORS.stream().allMatch(this::available));
    } catch (ConditionTimeoutException e) {
      PlatformChart.OPERATORS.forEach(op -> pods(op).forEach(this::describe));
      cluster.printLogTails(30, System.err::println);
      throw e;
    }
  }

  private void createMySqlBackupClaim() {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(PlatformRelease.NAMESPACE)
                .endMetadata()
                .build())
        .serverSideApply();
    admin
        .persistentVolumeClaims()
        .inNamespace(PlatformRelease.NAMESPACE)
        .resource(
            new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(MYSQL_BACKUP_CLAIM)
                .endMetadata()
                .withNewSpec()
                .withAccessModes("ReadWriteOnce")
                .withNewResources()
                .addToRequests("storage", new Quantity("1Gi"))
                .endResources()
                .endSpec()
                .build())
        .create();
  }

  /** What a person would look at first: the Pod's container states and its last log lines. */
  void describe(Pod pod) {
    String name = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    System.err.println("----- " + name + " phase " + pod.getStatus().getPhase());
    if (pod.getStatus().getContainerStatuses() != null) {
      java.util.stream.Stream.concat(
              pod.getStatus().getInitContainerStatuses().stream(),
              pod.getStatus().getContainerStatuses().stream())
          .forEach(
              c ->
                  System.err.println(
                      "  "
                          + c.getName()
                          + " ready="
                          + c.getReady()
                          + " state="
                          + c.getState()
                          + " last="
                          + c.getLastState()));
    }
    java.util.stream.Stream.concat(
            pod.getSpec().getInitContainers().stream(), pod.getSpec().getContainers().stream())
        .map(io.fabric8.kubernetes.api.model.Container::getName)
        .forEach(
            container -> {
              try {
                String log =
                    admin
                        .pods()
                        .inNamespace(pod.getMetadata().getNamespace())
                        .withName(pod.getMetadata().getName())
                        .inContainer(container)
                        .tailingLines(40)
                        .getLog();
                System.err.println("  --- " + container + "\n" + log);
              } catch (RuntimeException e) {
                System.err.println("  --- " + container + ": no log (" + e.getMessage() + ")");
              }
            });
  }

  private boolean available(String operator) {
    Deployment d = deployment(operator);
    return d != null
        && d.getStatus() != null
        && d.getStatus().getReadyReplicas() != null
        && d.getStatus().getReadyReplicas() == replicas
        && d.getStatus().getUpdatedReplicas() != null
        && d.getStatus().getUpdatedReplicas() == replicas;
  }

  Deployment deployment(String operator) {
    return admin
        .apps()
        .deployments()
        .inNamespace(PlatformRelease.NAMESPACE)
        .withLabel("app.kubernetes.io/name", PlatformChart.chartName(operator))
        .list()
        .getItems()
        .stream()
        .findFirst()
        .orElse(null);
  }

  /** The operator's Pods (running or not). */
  List<Pod> pods(String operator) {
    return admin
        .pods()
        .inNamespace(PlatformRelease.NAMESPACE)
        .withLabels(Map.of("app.kubernetes.io/name", PlatformChart.chartName(operator)))
        .list()
        .getItems();
  }

  /** The operator's Lease, or null before anyone took it. */
  Lease lease(String operator) {
    return admin
        .leases()
        .inNamespace(PlatformRelease.NAMESPACE)
        .withName(PlatformChart.chartName(operator) + "-leader")
        .get();
  }

  KubernetesClient admin() {
    return admin;
  }

  RealNodeCluster cluster() {
    return cluster;
  }
}
