package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackgroundJobs;
import dev.bosun.common.backup.BackupReconciler;
import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.backup.JobFailures;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Addressing;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLBackupStatus;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Takes a MySQLCluster's logical backups ({@link BackupReconciler}'s steps): a dump from a healthy
 * replica (the primary only when it is alone), with the GTID it was taken at.
 */
@ControllerConfiguration(fieldManager = MySQLOperator.NAME)
public class MySQLBackupReconciler
    extends BackupReconciler<
        MySQLBackup, MySQLBackupStatus, MySQLCluster, MySQLBackupReconciler.DumpRun> {

  private final Addressing addressing;
  private final MySQLBackupStores stores;

  public MySQLBackupReconciler(
      EventRecorder events, Addressing addressing, MySQLBackupStores stores, Clock clock) {
    // Dumps take as long as the data is large: never on a reconcile thread. Two at a time here.
    super(
        MySQLCluster.class,
        MySQLBackupStatus.class,
        new BackgroundJobs<>("mysql-backup", 2, 32, JobFailures::describe),
        events,
        clock);
    this.addressing = addressing;
    this.stores = stores;
  }

  /** One dump taken in the background: from where, and what the dump client reported. */
  record DumpRun(String source, LogicalDump.Result result) {}

  @Override
  public BackupRequest request(MySQLBackup b) {
    return new BackupRequest(
        b.getSpec().getClusterName(), b.getSpec().getSchedule(), b.getSpec().getKeep());
  }

  @Override
  public BackupTarget openStore(MySQLBackup b, KubernetesClient client)
      throws BackupStoreException {
    return stores.open(b);
  }

  @Override
  public Start<DumpRun> start(
      MySQLBackup b,
      MySQLCluster cluster,
      BackupTarget target,
      Instant now,
      KubernetesClient client) {
    String source = source(cluster);
    if (source == null) {
      return new Blocked<>(
          "NoSource",
          "MySQLCluster "
              + b.getSpec().getClusterName()
              + " has no healthy replica (nor a lone primary) to back up from",
          Duration.ofSeconds(10));
    }
    ClusterSecrets.Found secrets = ClusterSecrets.ensure(client, cluster);
    if (secrets.credentials() == null) {
      return new Blocked<>(secrets.problemReason(), secrets.problem(), Duration.ofSeconds(30));
    }
    ClusterModel m = ClusterModel.of(cluster);
    Address address = addressing.of(m.namespace(), m.name(), source, m.port());
    String key = target.newKey(now, "sql");
    LogicalDump dump =
        new LogicalDump(SqlDialect.of(m.flavour()), secrets.credentials(), Duration.ofSeconds(10));
    return new Job<>(
        "dump of " + source + " into " + key,
        key,
        bytes -> new DumpRun(source, dump.dump(address, target.store(), key, bytes)));
  }

  @Override
  public Recorded recorded(MySQLBackup b, DumpRun run) {
    LogicalDump.Result r = run.result();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("lastGtid", r.gtid());
    fields.put("lastSource", run.source());
    String message =
        "dumped "
            + r.stored().size()
            + " bytes from "
            + run.source()
            + " at GTID "
            + r.gtid()
            + " to "
            + r.stored().location();
    return new Recorded(r.stored(), message, fields);
  }

  /** A healthy replica of the cluster, or its primary when it has no replica at all. */
  static String source(MySQLCluster c) {
    var s = c.getStatus();
    if (s == null || s.getInstances() == null) {
      return null;
    }
    for (Instances i : s.getInstances()) {
      if ("replica".equals(i.getRole()) && Boolean.TRUE.equals(i.getHealthy())) {
        return i.getName();
      }
    }
    int replicas = c.getSpec().getReplicas() == null ? 3 : c.getSpec().getReplicas();
    if (replicas == 1 && s.getPrimary() != null) {
      return s.getInstances().stream()
          .filter(i -> s.getPrimary().equals(i.getName()) && Boolean.TRUE.equals(i.getHealthy()))
          .map(Instances::getName)
          .findFirst()
          .orElse(null);
    }
    return null;
  }
}
