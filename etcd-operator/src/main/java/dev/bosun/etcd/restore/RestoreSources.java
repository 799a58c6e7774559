package dev.bosun.etcd.restore;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.etcd.backup.BackupStores;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Finds the newest snapshot of an EtcdBackup that a new member can be restored from. */
public final class RestoreSources {

  private RestoreSources() {}

  /** Why no restore source could be found; the reason is a condition reason. */
  public static final class NotRestorable extends Exception {
    private final String reason;

    public NotRestorable(String reason, String message) {
      super(message);
      this.reason = reason;
    }

    public String reason() {
      return reason;
    }
  }

  public static RestoreSource newest(KubernetesClient client, String namespace, String backupName)
      throws NotRestorable {
    EtcdBackup backup =
        client.resources(EtcdBackup.class).inNamespace(namespace).withName(backupName).get();
    if (backup == null) {
      throw new NotRestorable(
          "WaitingForBackup", "EtcdBackup " + backupName + " does not exist in " + namespace);
    }
    var s3 = backup.getSpec().getStore() == null ? null : backup.getSpec().getStore().getS3();
    if (s3 == null) {
      throw new NotRestorable(
          "BackupNotRestorable",
          "EtcdBackup "
              + backupName
              + " keeps its snapshots on the operator's volume, which member Pods cannot read;"
              + " restore from an s3 store, or restore the file by hand with etcdctl");
    }
    List<StoredObject> snapshots;
    try {
      BackupStore store = new BackupStores(client, Optional.empty()).open(backup);
      snapshots = store.list(BackupStores.prefix(backup));
    } catch (IOException | IllegalArgumentException e) {
      throw new NotRestorable(
          "WaitingForBackup", "cannot list the snapshots of " + backupName + ": " + e.getMessage());
    }
    StoredObject newest =
        snapshots.stream()
            .max(Comparator.comparing(StoredObject::lastModified).thenComparing(StoredObject::key))
            .orElseThrow(
                () ->
                    new NotRestorable(
                        "WaitingForBackup", "EtcdBackup " + backupName + " has no snapshot yet"));
    return new RestoreSource(
        backupName,
        newest.key(),
        s3.getEndpoint(),
        s3.getRegion(),
        s3.getBucket(),
        !Boolean.FALSE.equals(s3.getPathStyle()),
        s3.getCredentialsSecretName(),
        newest.lastModified());
  }
}
