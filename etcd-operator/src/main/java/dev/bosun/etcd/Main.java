package dev.bosun.etcd;

import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.ValidatingRoute;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.backup.BackupVolume;
import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.runtime.DnsCache;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.tls.ServingCertificates;
import dev.bosun.common.transfer.OperatorCertificate;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.common.transfer.RestoreServer;
import dev.bosun.etcd.client.EtcdConnections;
import dev.bosun.etcd.objects.MemberPods;
import dev.bosun.etcd.plan.LoopbackAddressing;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.ServiceAddressing;
import dev.bosun.etcd.reconciler.EtcdBackupAdmission;
import dev.bosun.etcd.reconciler.EtcdBackupReconciler;
import dev.bosun.etcd.reconciler.EtcdClusterAdmission;
import dev.bosun.etcd.reconciler.EtcdClusterReconciler;
import dev.bosun.etcd.restore.RestoreSources;
import dev.bosun.etcd.restore.SnapshotRoute;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ClientInterceptor;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the etcd operator against the cluster of the current kubeconfig or ServiceAccount. */
public final class Main {

  // Before any class of the operator starts the logging system, which fixes the JVM's address
  // cache for good (DnsCacheTest).
  static {
    DnsCache.followPodChanges();
  }

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
  public static final String BACKUP_DIR = BackupVolume.ENV;

  /** The backup directory the environment names, if any. */
  public static Optional<Path> backupDir(Map<String, String> env) {
    return BackupVolume.dir(env);
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
    return create(settings, client, addressing, backupDir, metrics, UnaryOperator.identity());
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
      UnaryOperator<URI> route) {
    return create(
        settings,
        client,
        addressing,
        backupDir,
        RestoreEndpoint.fromEnvironment(System.getenv()),
        WebhookSettings.fromEnvironment(System.getenv()),
        metrics,
        route);
  }

  /**
   * The same, with member Pods restored from the backup volume fetching their snapshot over HTTPS
   * from {@code restore} (unset: such restores are refused, saying why), and the admission webhook
   * {@code webhook} describes (empty: none). With a backup volume and a restore endpoint, or a
   * webhook, this reads (and the first time writes) the one certificate Secret in the operator's
   * namespace that both serve ({@link OperatorCertificate}), and serves each on its own port from
   * now until the runtime closes.
   */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      MemberAddressing addressing,
      Optional<Path> backupDir,
      Optional<RestoreEndpoint> restore,
      Optional<WebhookSettings> webhook,
      Metrics metrics,
      UnaryOperator<URI> route) {
    return create(
        settings, client, addressing, backupDir, restore, webhook, metrics, route, List.of());
  }

  /**
   * The same, every etcd call passing {@code etcdInterceptors} too (a chaos lab's cut: the operator
   * stopped at a chosen membership change or defragmentation, as a crash would stop it).
   */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      MemberAddressing addressing,
      Optional<Path> backupDir,
      Optional<RestoreEndpoint> restore,
      Optional<WebhookSettings> webhook,
      Metrics metrics,
      UnaryOperator<URI> route,
      List<ClientInterceptor> etcdInterceptors) {
    EventRecorder events = new EventRecorder(client, EtcdOperator.NAME);
    EtcdConnections connections = new EtcdConnections(route, etcdInterceptors);
    Clock clock = Clock.systemUTC();
    // Only a backup volume has snapshots to serve: no restore route without one.
    Optional<RestoreEndpoint> serving = backupDir.isPresent() ? restore : Optional.empty();
    Optional<ServingCertificates> certificates =
        OperatorCertificate.store(client, EtcdOperator.NAME, clock, serving, webhook)
            .map(store -> ServingCertificates.start(store, ServingCertificates.CHECK_EVERY));
    RestoreSources restoreSources =
        new RestoreSources(
            backupDir,
            serving.map(RestoreEndpoint::url),
            () -> certificates.orElseThrow().caBundlePem());
    EtcdBackupReconciler backups =
        new EtcdBackupReconciler(addressing, events, clock, backupDir, connections);
    OperatorRuntime runtime =
        new OperatorRuntime(settings, client, metrics)
            .register(clusterReconciler(addressing, events, clock, restoreSources, connections))
            .register(backups)
            // After the reconcilers stop: the members' clients and the snapshot threads go too.
            .onClose(connections)
            .onClose(backups);
    certificates.ifPresent(runtime::onClose);
    // Every replica serves snapshots of the volume they all mount, leader or not.
    serving.ifPresent(
        r ->
            runtime.onClose(
                RestoreServer.start(
                    r,
                    certificates.orElseThrow(),
                    SnapshotRoute.PATH,
                    SnapshotRoute.of(
                        backupDir.orElseThrow(), settings.watchNamespaces(), client))));
    // Every replica answers admission reviews too, and is ready once the API server trusts it:
    // the Service needs an endpoint that works.
    webhook.ifPresent(
        w ->
            AdmissionWebhook.start(
                    client, w, certificates.orElseThrow(), admissionRoutes(client, backupDir))
                .servesFor(runtime));
    return runtime;
  }

  private static EtcdClusterReconciler clusterReconciler(
      MemberAddressing addressing,
      EventRecorder events,
      Clock clock,
      RestoreSources restoreSources,
      EtcdConnections connections) {
    return new EtcdClusterReconciler(
        addressing,
        events,
        clock,
        Main::ensureBudget,
        System.getenv()
            .getOrDefault(EtcdOperator.OPERATOR_IMAGE_ENV, EtcdOperator.DEFAULT_OPERATOR_IMAGE),
        restoreSources,
        connections);
  }

  /** The budget that keeps {@code minAvailable} voters through voluntary disruptions. */
  private static void ensureBudget(
      KubernetesClient client,
      EtcdCluster cluster,
      int minAvailable,
      Optional<GenericKubernetesResource> cached) {
    PodDisruptionBudgets.ensure(
        client,
        cluster,
        new DisruptionBudget(
            cluster.getMetadata().getName(),
            Labels.of(cluster, EtcdOperator.APP, "disruption-budget", EtcdOperator.NAME),
            MemberPods.voterSelector(cluster),
            minAvailable,
            null),
        EtcdOperator.NAME,
        cached);
  }

  /**
   * The admission webhook on certificates of its own (tests): EtcdClusters on {@link
   * EtcdClusterAdmission#PATH} and EtcdBackups on {@link EtcdBackupAdmission#PATH}, checked by the
   * rules the reconcilers report as InvalidSpec, and the configuration's caBundle kept on its CA.
   */
  public static AdmissionWebhook serveAdmission(
      KubernetesClient client, WebhookSettings webhook, Optional<Path> backupDir) {
    return AdmissionWebhook.start(
        client, EtcdOperator.NAME, webhook, admissionRoutes(client, backupDir));
  }

  private static Map<String, HttpHandler> admissionRoutes(
      KubernetesClient client, Optional<Path> backupDir) {
    return Map.of(
        EtcdClusterAdmission.PATH,
        new ValidatingRoute<>(EtcdCluster.class, new EtcdClusterAdmission()),
        EtcdBackupAdmission.PATH,
        new ValidatingRoute<>(EtcdBackup.class, new EtcdBackupAdmission(client, backupDir)));
  }
}
