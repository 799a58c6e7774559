package dev.bosun.etcd.testing;

import dev.bosun.common.backup.BackupStoreSpec;
import dev.bosun.common.status.Conditions;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupSpec;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Bootstrap;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.bootstrap.FromBackup;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.awaitility.Awaitility;

/** Creating EtcdBackups, and clusters restored from them, and waiting on them in tests. */
public final class EtcdBackups {

  private EtcdBackups() {}

  /** Creates a backup of {@code cluster} into {@code store}; {@code keep} null: the default. */
  public static EtcdBackup create(
      KubernetesClient client,
      String namespace,
      String name,
      String cluster,
      BackupStoreSpec store,
      Integer keep) {
    EtcdBackup b = new EtcdBackup();
    b.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    EtcdBackupSpec spec = new EtcdBackupSpec();
    spec.setClusterName(cluster);
    spec.setStore(store);
    if (keep != null) {
      spec.setKeep(keep);
    }
    b.setSpec(spec);
    return client.resource(b).create();
  }

  /** Waits until the backup has recorded a snapshot and is Ready. */
  public static EtcdBackup awaitSucceeded(
      KubernetesClient client, String namespace, String name, Duration atMost) {
    return Awaitility.await(name + " succeeded")
        .atMost(atMost)
        .until(
            () -> client.resources(EtcdBackup.class).inNamespace(namespace).withName(name).get(),
            b ->
                b != null
                    && b.getStatus() != null
                    && b.getStatus().getLastBackup() != null
                    && Conditions.isTrue(b.getStatus().getConditions(), "Ready"));
  }

  /** A new cluster of {@code size} members to be bootstrapped from the backup {@code backup}. */
  public static EtcdCluster restoredSpec(
      String namespace, String name, int size, String version, String backup) {
    EtcdCluster restored = new EtcdCluster();
    restored.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setSize(size);
    spec.setVersion(version);
    Bootstrap bootstrap = new Bootstrap();
    FromBackup from = new FromBackup();
    from.setBackupName(backup);
    bootstrap.setFromBackup(from);
    spec.setBootstrap(bootstrap);
    restored.setSpec(spec);
    return restored;
  }
}
