package dev.bosun.etcd.restore;

import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.status.ReasonedException;
import dev.bosun.etcd.backup.EtcdBackupStores;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Finds the newest snapshot of an EtcdBackup that a new member can be restored from. Snapshots on
 * the operator's backup volume are restorable only when the operator has that volume and member
 * Pods know where to fetch from (the operator's HTTPS URL, set by the chart) and which CA to trust.
 */
public final class RestoreSources {

  private final Optional<Path> backupDir;
  private final Optional<URI> operatorUrl;
  private final Supplier<String> caBundle;

  /**
   * @param backupDir the operator's backup directory, if it has one
   * @param operatorUrl the operator's HTTPS restore endpoint as member Pods reach it, if known
   * @param caBundle the CA (PEM) member Pods verify that endpoint's certificate against, asked for
   *     only when a snapshot on the backup volume is restored
   */
  public RestoreSources(
      Optional<Path> backupDir, Optional<URI> operatorUrl, Supplier<String> caBundle) {
    this.backupDir = backupDir;
    this.operatorUrl = operatorUrl;
    this.caBundle = caBundle;
  }

  /** Why no restore source could be found; the reason is a condition reason. */
  public static final class NotRestorable extends ReasonedException {
    public NotRestorable(String reason, String message) {
      super(reason, message);
    }
  }

  /** The newest snapshot of EtcdBackup {@code backupName} in {@code namespace}. */
  public RestoreSource newest(KubernetesClient client, String namespace, String backupName)
      throws NotRestorable {
    EtcdBackup backup =
        client.resources(EtcdBackup.class).inNamespace(namespace).withName(backupName).get();
    if (backup == null) {
      throw new NotRestorable(
          "WaitingForBackup", "EtcdBackup " + backupName + " does not exist in " + namespace);
    }
    return newest(client, backup);
  }

  /** The newest snapshot of {@code backup}. */
  public RestoreSource newest(KubernetesClient client, EtcdBackup backup) throws NotRestorable {
    String name = backup.getMetadata().getName();
    var store = backup.getSpec().getStore();
    var s3 = store == null ? null : store.s3();
    if (s3 == null) {
      refuseUnservableVolume(name);
    }
    StoredObject newest = newestSnapshot(client, backup);
    if (s3 == null) {
      return new RestoreSource.Volume(
          name, newest.key(), operatorUrl.orElseThrow(), caBundle.get(), newest.lastModified());
    }
    return new RestoreSource.S3(
        name,
        newest.key(),
        s3.endpoint(),
        s3.region(),
        s3.bucket(),
        !Boolean.FALSE.equals(s3.pathStyle()),
        s3.credentialsSecret().name(),
        newest.lastModified());
  }

  private void refuseUnservableVolume(String backup) throws NotRestorable {
    if (backupDir.isEmpty()) {
      throw new NotRestorable(
          "BackupNotRestorable",
          "EtcdBackup "
              + backup
              + " keeps its snapshots on the operator's backup volume, which this operator does"
              + " not mount (chart value backup.volume.enabled); restore from an s3 store, or"
              + " restore the file by hand with etcdctl");
    }
    if (operatorUrl.isEmpty()) {
      throw new NotRestorable(
          "BackupNotRestorable",
          "EtcdBackup "
              + backup
              + " keeps its snapshots on the operator's backup volume; member Pods fetch them"
              + " from the operator over HTTPS, and the operator's URL is not set (environment"
              + " BOSUN_OPERATOR_URL, set by the chart with backup.volume.enabled); restore from"
              + " an s3 store, or restore the file by hand with etcdctl");
    }
  }

  private StoredObject newestSnapshot(KubernetesClient client, EtcdBackup backup)
      throws NotRestorable {
    String name = backup.getMetadata().getName();
    try {
      return EtcdBackupStores.open(client, backupDir, backup)
          .newest()
          .orElseThrow(
              () ->
                  new NotRestorable(
                      "WaitingForBackup", "EtcdBackup " + name + " has no snapshot yet"));
    } catch (BackupStoreException e) {
      // The stores' own sentences about what the user must fix.
      throw new NotRestorable(
          "WaitingForBackup", "cannot list the snapshots of " + name + ": " + e.getMessage());
    } catch (IOException e) {
      throw new NotRestorable(
          "WaitingForBackup",
          "cannot list the snapshots of " + name + ": " + HumanMessages.describe(e));
    }
  }
}
