package dev.bosun.mysql.backup;

import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.BackupStores;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.backup.BackupVolume;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Opens the store of a MySQLBackup through the common backup code, with this chart's wording. */
public final class MySQLBackupStores {

  private final BackupStores stores;

  /** Stores under {@code volumeRoot} (the operator's backup volume, null: none) or in S3. */
  public MySQLBackupStores(KubernetesClient client, Path volumeRoot) {
    this.stores = new BackupStores(client, Optional.ofNullable(volumeRoot), BackupVolume.HINT);
  }

  /** The store and key prefix of {@code backup}'s dumps. */
  public BackupTarget open(MySQLBackup backup) throws BackupStoreException {
    return stores.open(backup, backup.getSpec().getClusterName(), backup.getSpec().getStore());
  }

  /**
   * What the reconciler reports as InvalidSpec in {@code backup} without a read (its schedule and
   * store).
   */
  public List<String> specProblems(MySQLBackup backup) {
    return stores.specProblems(
        backup,
        backup.getSpec().getSchedule(),
        backup.getSpec().getClusterName(),
        backup.getSpec().getStore());
  }
}
