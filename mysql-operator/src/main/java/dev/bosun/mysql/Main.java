package dev.bosun.mysql;

import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.ValidatingRoute;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.backup.BackupVolume;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.runtime.DnsCache;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.tls.ServingCertificates;
import dev.bosun.common.transfer.OperatorCertificate;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.common.transfer.RestoreServer;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.plan.Addressing;
import dev.bosun.mysql.reconciler.BackupAdmission;
import dev.bosun.mysql.reconciler.BackupRestorer;
import dev.bosun.mysql.reconciler.ClusterAdmission;
import dev.bosun.mysql.reconciler.MySQLBackupReconciler;
import dev.bosun.mysql.reconciler.MySQLClusterReconciler;
import dev.bosun.mysql.reconciler.ReplicaRebuilder;
import dev.bosun.mysql.restore.CheckedDumps;
import dev.bosun.mysql.restore.DumpRoute;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Runs the MySQL operator against the cluster of the current kubeconfig or ServiceAccount. */
public final class Main {

  // Before any class of the operator starts the logging system, which fixes the JVM's address
  // cache for good (DnsCacheTest).
  static {
    DnsCache.followPodChanges();
  }

  /**
   * Deprecated name of the backup volume's directory, still read when {@value BackupVolume#ENV}
   * (the name every operator uses) is unset.
   */
  public static final String BACKUP_ROOT = "BOSUN_MYSQL_BACKUP_ROOT";

  /** Milliseconds between two health rounds of one cluster. */
  public static final String POLL_MILLIS = "BOSUN_MYSQL_POLL_MILLIS";

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    OperatorSettings settings = OperatorSettings.fromEnvironment(MySQLOperator.NAME);
    Duration poll = pollInterval(System.getenv());
    Path backups = backupRoot(System.getenv());
    OperatorRuntime.runDeployed(client -> create(settings, client, null, poll, backups));
  }

  static Path backupRoot(Map<String, String> env) {
    return BackupVolume.dir(env, BACKUP_ROOT).orElse(null);
  }

  /** The health-poll interval the environment sets ({@value #POLL_MILLIS}), 5 s by default. */
  public static Duration pollInterval(Map<String, String> env) {
    String v = env.get(POLL_MILLIS);
    if (v == null || v.isBlank()) {
      return Duration.ofSeconds(5);
    }
    long ms = Long.parseLong(v.trim());
    if (ms < 100 || ms > 600_000) {
      throw new IllegalArgumentException(POLL_MILLIS + " must be between 100 and 600000");
    }
    return Duration.ofMillis(ms);
  }

  /**
   * The operator with its reconcilers registered, not yet started. {@code addressing} null means
   * the headless Service's DNS names (tests map pods to real servers on 127.0.0.1). With {@value
   * WebhookSettings#CONFIGURATION} set, the admission webhook is served from now until the runtime
   * closes.
   */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      Addressing addressing,
      Duration poll,
      Path backupRoot) {
    return create(
        settings,
        client,
        addressing,
        poll,
        backupRoot,
        WebhookSettings.fromEnvironment(System.getenv()));
  }

  /** The same, with the admission webhook {@code webhook} describes (empty: none). */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      Addressing addressing,
      Duration poll,
      Path backupRoot,
      Optional<WebhookSettings> webhook) {
    return create(
        settings,
        client,
        addressing,
        poll,
        backupRoot,
        RestoreEndpoint.fromEnvironment(System.getenv()),
        webhook,
        System.getenv()
            .getOrDefault(MySQLOperator.OPERATOR_IMAGE_ENV, MySQLOperator.DEFAULT_OPERATOR_IMAGE));
  }

  /**
   * The same, with restore Jobs fetching checked dumps over HTTPS from {@code restore} (empty:
   * restores from a backup are refused, saying why) with the fetch container of {@code
   * operatorImage}. With a restore endpoint or a webhook, this reads (and the first time writes)
   * the one certificate Secret in the operator's namespace that both serve ({@link
   * OperatorCertificate}), and serves each on its own port until the runtime closes.
   */
  public static OperatorRuntime create(
      OperatorSettings settings,
      KubernetesClient client,
      Addressing addressing,
      Duration poll,
      Path backupRoot,
      Optional<RestoreEndpoint> restore,
      Optional<WebhookSettings> webhook,
      String operatorImage) {
    EventRecorder events = new EventRecorder(client, MySQLOperator.NAME);
    Addressing where = addressing != null ? addressing : Addressing.headlessService();
    MySQLBackupStores stores = new MySQLBackupStores(client, backupRoot);
    ReplicaRebuilder rebuilder =
        new ReplicaRebuilder(
            client, operatorImage, backupRoot, Duration.ofSeconds(3), Clock.systemUTC());
    OperatorRuntime runtime = new OperatorRuntime(settings, client).onClose(rebuilder);
    Optional<ServingCertificates> certificates =
        restore.isEmpty()
            ? Optional.empty()
            : OperatorCertificate.store(
                    client, MySQLOperator.NAME, Clock.systemUTC(), restore, webhook)
                .map(store -> ServingCertificates.start(store, ServingCertificates.CHECK_EVERY));
    certificates.ifPresent(runtime::onClose);
    CheckedDumps dumps = new CheckedDumps();
    // Every replica serves checked dumps (each checks what it serves), leader or not.
    restore.ifPresent(
        r ->
            runtime.onClose(
                RestoreServer.start(
                    r,
                    certificates.orElseThrow(),
                    DumpRoute.PATH,
                    new DumpRoute(client, stores, dumps).route(settings.watchNamespaces()))));
    // After the route that serves them: their directory goes when the operator stops.
    runtime.onClose(dumps);
    // Every replica answers admission reviews, leader or not, and is ready once the API server
    // trusts it: the Service needs an endpoint that works.
    webhook.ifPresent(
        w ->
            (certificates.isPresent()
                    ? AdmissionWebhook.start(client, w, certificates.get(), admissionRoutes(stores))
                    : serveAdmission(client, w, stores))
                .servesFor(runtime));
    Optional<BackupRestorer.Route> route =
        restore.map(
            r -> new BackupRestorer.Route(r.url(), () -> certificates.orElseThrow().caBundlePem()));
    MySQLBackupReconciler backups =
        new MySQLBackupReconciler(events, where, stores, Clock.systemUTC());
    return runtime
        .register(
            new MySQLClusterReconciler(
                events,
                where,
                poll,
                Duration.ofSeconds(3),
                Clock.systemUTC(),
                new BackupRestorer(client, stores, dumps, route, operatorImage),
                rebuilder))
        .register(backups)
        // After the reconcilers stop: the dump threads go too.
        .onClose(backups);
  }

  /**
   * The admission webhook: MySQLClusters on {@link ClusterAdmission#PATH} and MySQLBackups on
   * {@link BackupAdmission#PATH} (their stores judged as {@code stores} opens them), checked by the
   * rules the reconcilers report as InvalidSpec, over HTTPS with the certificate in the operator's
   * Secret, and the configuration's caBundle kept on its CA.
   */
  public static AdmissionWebhook serveAdmission(
      KubernetesClient client, WebhookSettings webhook, MySQLBackupStores stores) {
    return AdmissionWebhook.start(client, MySQLOperator.NAME, webhook, admissionRoutes(stores));
  }

  private static Map<String, HttpHandler> admissionRoutes(MySQLBackupStores stores) {
    return Map.of(
        ClusterAdmission.PATH,
        new ValidatingRoute<>(MySQLCluster.class, new ClusterAdmission()),
        BackupAdmission.PATH,
        new ValidatingRoute<>(MySQLBackup.class, new BackupAdmission(stores)));
  }
}
