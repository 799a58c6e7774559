package dev.bosun.platform;

import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.UpgradeCommand;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.common.testing.RealNodeCluster;
import io.fabric8.kubernetes.api.model.Container;
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
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The umbrella chart installed on the real node, the operators running as the charts' Deployments
 * (two replicas each, one leading) from their own images: Jib builds them on the Debian JRE base
 * ({@code -Pnode-image}) and they are imported into the node's containerd under the references the
 * charts default to, so the chart is installed with its defaults plus the replica count.
 */
public final class RealNodePlatform {

  public static final int REPLICAS = 2;
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
  public static synchronized RealNodePlatform shared() {
    if (shared == null) {
      shared = install(RealNodeCluster.shared(), REPLICAS);
    }
    return shared;
  }

  /** Imports the operator images into the node and installs the chart with {@code replicas}. */
  public static RealNodePlatform install(RealNodeCluster cluster, int replicas) {
    RealNodePlatform platform = new RealNodePlatform(cluster, replicas);
    platform.importOperatorImages();
    platform.install();
    return platform;
  }

  /**
   * Installs an earlier release instead: its platform chart and operator images ({@link
   * PreviousRelease}), the images under their own tag, with the values {@link #install} gives.
   */
  public static RealNodePlatform installPrevious(
      RealNodeCluster cluster, int replicas, PreviousRelease previous) {
    RealNodePlatform platform = new RealNodePlatform(cluster, replicas);
    for (String operator : PlatformChart.OPERATORS) {
      String reference = cluster.node().importImage(previous.image(operator));
      System.err.println("[e2e] imported " + reference + " (" + previous + ") into the node");
    }
    platform.install(previous.chart(), previous.imageTagValues());
    return platform;
  }

  /**
   * Upgrades this release to the current chart and operator images by {@code helm upgrade} with the
   * values {@link #install} gives, waits until every operator Deployment has rolled to the current
   * image, and makes this the platform {@link #shared()} returns.
   */
  public void upgradeToCurrent() {
    Instant start = Instant.now();
    importOperatorImages();
    progress("current operator images imported", start);
    UpgradeCommand upgrade =
        new Helm(PlatformChart.dir())
            .upgrade()
            // Only the values given here: the earlier release's image tags must not carry over.
            .resetValues()
            .withName(PlatformRelease.RELEASE)
            .withNamespace(PlatformRelease.NAMESPACE)
            .withKubeConfig(cluster.controlPlane().kubeconfig());
    values(Map.of()).forEach(upgrade::set);
    upgrade.call();
    progress("helm upgrade called", start);
    awaitOperators();
    progress("every operator Deployment rolled to its current image", start);
    // A roll ends when the old Pods are gone, not when they start terminating: an old replica
    // within its grace period still runs the old operator (and is listed with the new ones).
    await("the earlier operator Pods to be gone")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> PlatformChart.OPERATORS.stream().allMatch(op -> pods(op).size() == replicas));
    progress("the earlier operator Pods gone", start);
    synchronized (RealNodePlatform.class) {
      shared = this;
    }
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
    install(PlatformChart.dir(), Map.of());
  }

  private void install(Path chart, Map<String, String> extraValues) {
    createMySqlBackupClaim();
    InstallCommand install =
        new Helm(chart)
            .install()
            .withName(PlatformRelease.RELEASE)
            .withNamespace(PlatformRelease.NAMESPACE)
            .createNamespace()
            .withKubeConfig(cluster.controlPlane().kubeconfig());
    values(extraValues).forEach(install::set);
    install.call();
    awaitOperators();
  }

  /** A progress line: how long since {@code start} the upgrade or install took to get here. */
  private static void progress(String what, Instant start) {
    System.err.printf(
        "[e2e] %s: %.1f s%n", what, Duration.between(start, Instant.now()).toMillis() / 1000.0);
  }

  /** The values every install and upgrade here gives, then {@code extra}. */
  private Map<String, String> values(Map<String, String> extra) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String operator : PlatformChart.OPERATORS) {
      values.put(operator + ".replicaCount", Integer.toString(replicas));
    }
    // Backups to a volume: the etcd chart creates its claim, the MySQL chart mounts ours.
    values.put("etcd.backup.volume.enabled", "true");
    values.put("etcd.backup.volume.size", "1Gi");
    values.put("mysql.backupVolume.claimName", MYSQL_BACKUP_CLAIM);
    values.putAll(extra);
    return values;
  }

  private void awaitOperators() {
    Instant start = Instant.now();
    // When each operator got there: a slow roll names the operator that held it up.
    Map<String, Duration> availableAfter = new LinkedHashMap<>();
    try {
      await("every operator Deployment to have " + replicas + " ready Pods running its image")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                for (String operator : PlatformChart.OPERATORS) {
                  if (!availableAfter.containsKey(operator) && available(operator)) {
                    availableAfter.put(operator, Duration.between(start, Instant.now()));
                  }
                }
                return availableAfter.size() == PlatformChart.OPERATORS.size()
                    && PlatformChart.OPERATORS.stream().allMatch(this::available);
              });
      availableAfter.forEach(
          (operator, after) ->
              System.err.printf(
                  "[e2e] %s operator: %d ready Pods of its image after %.1f s%n",
                  operator, replicas, after.toMillis() / 1000.0));
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
  public void describe(Pod pod) {
    String name = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    System.err.println("----- " + name + " phase " + pod.getStatus().getPhase());
    if (pod.getStatus().getContainerStatuses() != null) {
      Stream.concat(
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
    Stream.concat(
            pod.getSpec().getInitContainers().stream(), pod.getSpec().getContainers().stream())
        .map(Container::getName)
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
        // A status not yet written for this spec (right after an upgrade) still counts the old.
        && Objects.equals(d.getStatus().getObservedGeneration(), d.getMetadata().getGeneration())
        && d.getStatus().getReplicas() != null
        && d.getStatus().getReplicas() == replicas
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
  public List<Pod> pods(String operator) {
    return admin
        .pods()
        .inNamespace(PlatformRelease.NAMESPACE)
        .withLabels(Map.of("app.kubernetes.io/name", PlatformChart.chartName(operator)))
        .list()
        .getItems();
  }

  /** The operator's Lease, or null before anyone took it. */
  public Lease lease(String operator) {
    return admin
        .leases()
        .inNamespace(PlatformRelease.NAMESPACE)
        .withName(PlatformChart.chartName(operator) + "-leader")
        .get();
  }

  public KubernetesClient admin() {
    return admin;
  }

  public RealNodeCluster cluster() {
    return cluster;
  }
}
