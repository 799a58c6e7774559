package dev.bosun.mysql;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.ValidatingRoute;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.reconciler.BackupAdmission;
import dev.bosun.mysql.reconciler.BackupRestorer;
import dev.bosun.mysql.reconciler.ClusterAdmission;
import dev.bosun.mysql.reconciler.MySQLBackupReconciler;
import dev.bosun.mysql.reconciler.MySQLClusterReconciler;
import dev.bosun.mysql.reconciler.ReplicaRebuilder;
import dev.bosun.mysql.topology.Addressing;
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

  /** Directory of the operator's backup volume (a mounted PVC); unset: S3 backups only. */
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
    String v = env.get(BACKUP_ROOT);
    return v == null || v.isBlank() ? null : Path.of(v);
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
    EventRecorder events = new EventRecorder(client, MySQLOperator.NAME);
    Addressing where = addressing != null ? addressing : Addressing.headlessService();
    MySQLBackupStores stores = new MySQLBackupStores(client, backupRoot);
    ReplicaRebuilder rebuilder =
        new ReplicaRebuilder(backupRoot, Duration.ofSeconds(3), Clock.systemUTC());
    OperatorRuntime runtime = new OperatorRuntime(settings, client).onClose(rebuilder);
    // Every replica answers admission reviews, leader or not, and is ready once the API server
    // trusts it: the Service needs an endpoint that works.
    webhook.ifPresent(w -> serveAdmission(client, w, stores).servesFor(runtime));
    return runtime
        .register(
            new MySQLClusterReconciler(
                events,
                where,
                poll,
                Duration.ofSeconds(3),
                Clock.systemUTC(),
                new BackupRestorer(client, stores),
                rebuilder))
        .register(new MySQLBackupReconciler(events, where, stores, Clock.systemUTC()));
  }

  /**
   * The admission webhook: MySQLClusters on {@link ClusterAdmission#PATH} and MySQLBackups on
   * {@link BackupAdmission#PATH} (their stores judged as {@code stores} opens them), checked by the
   * rules the reconcilers report as InvalidSpec, over HTTPS with the certificate in the operator's
   * Secret, and the configuration's caBundle kept on its CA.
   */
  public static AdmissionWebhook serveAdmission(
      KubernetesClient client, WebhookSettings webhook, MySQLBackupStores stores) {
    return AdmissionWebhook.start(
        client,
        MySQLOperator.NAME,
        webhook,
        Map.of(
            ClusterAdmission.PATH,
            new ValidatingRoute<>(MySQLCluster.class, new ClusterAdmission()),
            BackupAdmission.PATH,
            new ValidatingRoute<>(MySQLBackup.class, new BackupAdmission(stores))));
  }
}
