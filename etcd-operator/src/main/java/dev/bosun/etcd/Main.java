package dev.bosun.etcd;

import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.etcd.backup.SnapshotJobs;
import dev.bosun.etcd.dependent.MemberPods;
import dev.bosun.etcd.etcd.EtcdConnections;
import dev.bosun.etcd.membership.LoopbackAddressing;
import dev.bosun.etcd.membership.MemberAddressing;
import dev.bosun.etcd.membership.ServiceAddressing;
import dev.bosun.etcd.reconciler.EtcdBackupReconciler;
import dev.bosun.etcd.reconciler.EtcdClusterReconciler;
import dev.bosun.etcd.restore.RestoreSources;
import dev.bosun.etcd.restore.SnapshotRoute;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the etcd operator against the cluster of the current kubeconfig or ServiceAccount. */
public final class Main {

  /** {@code service} (default, in a cluster) or {@code loopback} (members on this machine). */
  public static final String ADDRESSING = "BOSUN_ETCD_ADDRESSING";

  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    OperatorSettings settings = OperatorSettings.fromEnvironment(EtcdOperator.NAME);
    MemberAddressing addressing = addressing(System.getenv());
    OperatorRuntime.runDeployed(client -> create(settings, client, addressing));
  }

  /** The operator's backup volume, where {@code store.volume} snapshots go. */
  public static final String BACKUP_DIR = "BOSUN_BACKUP_DIR";

  /** The backup directory the environment names, if any. */
  public static Optional<Path> backupDir(Map<String, String> env) {
    String dir = env.getOrDefault(BACKUP_DIR, "").trim();
    return dir.isEmpty() ? Optional.empty() : Optional.of(Path.of(dir));
  }

  /**
   * The operator's HTTP endpoint as member Pods reach it (the chart sets the metrics Service's
   * cluster DNS name): where a member restored from the backup volume fetches its snapshot.
   */
  public static final String OPERATOR_URL = "BOSUN_OPERATOR_URL";

  /** The operator URL the environment names, if any. */
  public static Optional<URI> operatorUrl(Map<String, String> env) {
    String url = env.getOrDefault(OPERATOR_URL, "").trim();
    if (url.isEmpty()) {
      return Optional.empty();
    }
    URI uri = URI.create(url);
    boolean web = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
    if (!web || uri.getHost() == null) {
      throw new IllegalArgumentException(OPERATOR_URL + " must be an http(s) URL: " + url);
    }
    return Optional.of(uri);
  }

  /** The addressing the environment asks for. */
  public static MemberAddressing addressing(Map<String, String> env) {
    String mode = env.getOrDefault(ADDRESSING, "service").trim();
    return switch (mode) {
      case "service" -> new ServiceAddressing();
      case "loopback" -> new LoopbackAddressing(2);
      default ->
          throw new IllegalArgumentException(ADDRESSING + " must be service or loopback: " + mode);
    };
  }

  /** The operator with its reconcilers registered, not yet started. */
  public static OperatorRuntime create(
      OperatorSettings settings, KubernetesClient client, MemberAddressing addressing) {
    return create(settings, client, addressing, backupDir(System.getenv()), null);
  }

  /**
   * The same, with snapshots of {@code store.volume} under {@code backupDir} and JOSDK's metrics
   * going to {@code metrics} (tests count reconciles).
   */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      MemberAddressing addressing,
      Optional<Path> backupDir,
      Metrics metrics) {
    return create(
        settings,
        client,
        addressing,
        backupDir,
        metrics,
        java.util.function.UnaryOperator.identity());
  }

  /**
   * The same, with the operator's etcd connections going where {@code route} sends each member
   * endpoint (partition drills route them through relays bound to the operator's own address).
   */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      MemberAddressing addressing,
      Optional<Path> backupDir,
      Metrics metrics,
      java.util.function.UnaryOperator<java.net.URI> route) {
    return create(
        settings, client, addressing, backupDir, operatorUrl(System.getenv()), metrics, route);
  }

  /**
   * The same, with member Pods restored from the backup volume fetching their snapshot from {@code
   * operatorUrl} (unset: such restores are refused, saying why).
   */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      MemberAddressing addressing,
      Optional<Path> backupDir,
      Optional<URI> operatorUrl,
      Metrics metrics,
      java.util.function.UnaryOperator<java.net.URI> route) {
    if (operatorUrl.isPresent() && settings.httpPort() < 0) {
      LOG.warn(
          "{} is set but the HTTP port is disabled: restores from the backup volume will fail",
          OPERATOR_URL);
    }
    EventRecorder events = new EventRecorder(client, EtcdOperator.NAME);
    EtcdConnections connections = new EtcdConnections(route);
    Clock clock = Clock.systemUTC();
    EtcdClusterReconciler clusters =
        new EtcdClusterReconciler(
            addressing,
            events,
            clock,
            (c, cluster, minAvailable, cached) ->
                PodDisruptionBudgets.ensure(
                    c,
                    cluster,
                    new DisruptionBudget(
                        cluster.getMetadata().getName(),
                        Labels.of(
                            cluster, EtcdOperator.APP, "disruption-budget", EtcdOperator.NAME),
                        MemberPods.voterSelector(cluster),
                        minAvailable,
                        null),
                    EtcdOperator.NAME,
                    cached),
            System.getenv()
                .getOrDefault(EtcdOperator.OPERATOR_IMAGE_ENV, EtcdOperator.DEFAULT_OPERATOR_IMAGE),
            new RestoreSources(backupDir, operatorUrl),
            connections);
    EtcdBackupReconciler backups =
        new EtcdBackupReconciler(
            addressing, events, clock, backupDir, connections, new SnapshotJobs());
    OperatorRuntime runtime =
        new OperatorRuntime(settings, client, metrics).register(clusters).register(backups);
    // Every replica serves snapshots of the volume they all mount, leader or not.
    backupDir.ifPresent(
        dir ->
            runtime.route(
                SnapshotRoute.PATH, SnapshotRoute.of(dir, settings.watchNamespaces(), client)));
    return runtime;
  }
}
