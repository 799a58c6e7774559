package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackupTarget;
import dev.bosun.mysql.backup.BackgroundJobs;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.workload.InstanceException;
import dev.bosun.mysql.workload.Restorer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.function.BiFunction;

/**
 * Loads a new cluster's fromBackup (the named dump of the MySQLBackup, else its newest) on a
 * background worker, one load per cluster, never on a reconcile thread.
 */
public final class BackupRestorer implements BiFunction<MySQLCluster, ClusterModel, Restorer> {

  private final KubernetesClient client;
  private final MySQLBackupStores stores;
  private final Clock clock;
  private final BackgroundJobs<String> loads = new BackgroundJobs<>("mysql-restore", 1, 16);

  public BackupRestorer(KubernetesClient client, MySQLBackupStores stores) {
    this(client, stores, Clock.systemUTC());
  }

  BackupRestorer(KubernetesClient client, MySQLBackupStores stores, Clock clock) {
    this.client = client;
    this.stores = stores;
    this.clock = clock;
  }

  @Override
  public Restorer apply(MySQLCluster cluster, ClusterModel m) {
    String key = cluster.getMetadata().getUid();
    return new Restorer() {
      @Override
      public boolean start(dev.bosun.mysql.topology.Address primary) {
        return loads.submit(
            key,
            "load of fromBackup " + m.fromBackup(),
            clock.instant(),
            () -> load(cluster, m, primary));
      }

      @Override
      public Progress progress() {
        return loads
            .state(key)
            .map(
                s ->
                    s instanceof BackgroundJobs.Done<String> d
                        ? new Progress(false, d.result(), null)
                        : s instanceof BackgroundJobs.Failed<String> f
                            ? new Progress(false, null, f.message())
                            : new Progress(true, null, null))
            .orElse(null);
      }

      @Override
      public void forget() {
        loads.forget(key);
      }
    };
  }

  private String load(MySQLCluster cluster, ClusterModel m, dev.bosun.mysql.topology.Address to)
      throws Exception {
    MySQLBackup b =
        client
            .resources(MySQLBackup.class)
            .inNamespace(m.namespace())
            .withName(m.fromBackup())
            .get();
    if (b == null) {
      throw new InstanceException("MySQLBackup " + m.fromBackup() + " does not exist");
    }
    BackupTarget target = stores.open(b);
    String dump;
    try {
      dump =
          target
              .restoreKey(m.fromBackupKey())
              .orElseThrow(
                  () ->
                      new InstanceException(
                          "MySQLBackup " + m.fromBackup() + " holds no dump yet"));
    } catch (IllegalArgumentException e) {
      // The store is the whole backup volume or bucket: only this backup's own keys are loaded.
      throw new InstanceException("bootstrap.fromBackup.key " + e.getMessage());
    }
    ClusterSecrets.Found secrets = ClusterSecrets.ensure(client, cluster);
    if (secrets.credentials() == null) {
      throw new InstanceException(secrets.problem());
    }
    new LogicalDump(SqlDialect.of(m.flavour()), secrets.credentials(), Duration.ofSeconds(10))
        .load(target.store(), dump, to);
    return target.store().location(dump);
  }
}
