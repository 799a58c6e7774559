package dev.bosun.etcd.backup;

import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.BackupStores;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.backup.BackupVolume;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The store of an EtcdBackup, opened by the common backup code with this chart's wording. */
public final class EtcdBackupStores {

  private EtcdBackupStores() {}

  /** The store and key prefix of {@code backup}'s snapshots. */
  public static BackupTarget open(
      KubernetesClient client, Optional<Path> backupDir, EtcdBackup backup)
      throws BackupStoreException {
    return new BackupStores(client, backupDir, BackupVolume.HINT)
        .open(backup, backup.getSpec().getClusterName(), backup.getSpec().getStore());
  }

  /**
   * What the reconciler reports as InvalidSpec in {@code backup} without a read (its schedule and
   * store), for the admission webhook.
   */
  public static List<String> specProblems(
      KubernetesClient client, Optional<Path> backupDir, EtcdBackup backup) {
    return new BackupStores(client, backupDir, BackupVolume.HINT)
        .specProblems(
            backup,
            backup.getSpec().getSchedule(),
            backup.getSpec().getClusterName(),
            backup.getSpec().getStore());
  }
}
