package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.mysql.backup.BackupStores;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.workload.InstanceException;
import dev.bosun.mysql.workload.Restorer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiFunction;

/** Loads a new cluster's fromBackup: the named dump of the MySQLBackup, else its newest. */
public final class BackupRestorer implements BiFunction<MySQLCluster, ClusterModel, Restorer> {

  private final KubernetesClient client;
  private final BackupStores stores;

  public BackupRestorer(KubernetesClient client, BackupStores stores) {
    this.client = client;
    this.stores = stores;
  }

  @Override
  public Restorer apply(MySQLCluster cluster, ClusterModel m) {
    return primary -> {
      MySQLBackup b =
          client
              .resources(MySQLBackup.class)
              .inNamespace(m.namespace())
              .withName(m.fromBackup())
              .get();
      if (b == null) {
        throw new InstanceException("MySQLBackup " + m.fromBackup() + " does not exist");
      }
      BackupStore store = stores.open(b);
      String key = m.fromBackupArtifact();
      if (key == null) {
        List<StoredObject> dumps =
            store.list("").stream().filter(o -> o.key().endsWith(".sql")).toList();
        key =
            dumps.stream()
                .max(Comparator.comparing(StoredObject::key))
                .map(StoredObject::key)
                .orElseThrow(
                    () ->
                        new InstanceException(
                            "MySQLBackup " + m.fromBackup() + " holds no dump yet"));
      }
      ClusterSecrets.Found secrets = ClusterSecrets.ensure(client, cluster);
      if (!secrets.ok()) {
        throw new InstanceException(secrets.problem());
      }
      new LogicalDump(SqlDialect.of(m.flavour()), secrets.credentials(), Duration.ofSeconds(10))
          .load(store, key, primary);
      return store.location(key);
    };
  }
}
