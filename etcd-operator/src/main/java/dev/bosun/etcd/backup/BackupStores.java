package dev.bosun.etcd.backup;

import dev.bosun.common.backup.BackupKeys;
import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.common.backup.S3BackupStore;
import dev.bosun.common.backup.S3Credentials;
import dev.bosun.common.backup.S3Location;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.etcdbackupspec.Store;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;

/** Opens the store an EtcdBackup names, and says where its snapshots go inside it. */
public final class BackupStores {

  /** Secret keys of S3 credentials. */
  public static final String ACCESS_KEY_ID = "accessKeyId";

  public static final String SECRET_ACCESS_KEY = "secretAccessKey";

  private final KubernetesClient client;
  private final Optional<Path> volumeRoot;

  /**
   * @param volumeRoot the operator's backup directory (a volume mounted into its Pod), if any
   */
  public BackupStores(KubernetesClient client, Optional<Path> volumeRoot) {
    this.client = client;
    this.volumeRoot = volumeRoot;
  }

  /** The store, or an {@link IllegalArgumentException} saying what the user must fix. */
  public BackupStore open(EtcdBackup backup) {
    Store store = backup.getSpec().getStore();
    if (store == null || (store.getVolume() == null) == (store.getS3() == null)) {
      throw new IllegalArgumentException("store takes exactly one of volume or s3");
    }
    if (store.getVolume() != null) {
      Path root =
          volumeRoot.orElseThrow(
              () ->
                  new IllegalArgumentException(
                      "store.volume needs the operator's backup volume (chart value"
                          + " backup.volume.enabled, environment BOSUN_BACKUP_DIR); use s3"
                          + " otherwise"));
      return new FileSystemBackupStore(root);
    }
    var s3 = store.getS3();
    String ns = backup.getMetadata().getNamespace();
    Secret secret = client.secrets().inNamespace(ns).withName(s3.getCredentialsSecretName()).get();
    if (secret == null || secret.getData() == null) {
      throw new IllegalArgumentException(
          "Secret " + s3.getCredentialsSecretName() + " with the S3 credentials does not exist");
    }
    String id = decode(secret, ACCESS_KEY_ID);
    String key = decode(secret, SECRET_ACCESS_KEY);
    S3Location location =
        new S3Location(
            URI.create(s3.getEndpoint()),
            s3.getRegion(),
            s3.getBucket(),
            "",
            !Boolean.FALSE.equals(s3.getPathStyle()));
    return new S3BackupStore(location, new S3Credentials(id, key));
  }

  /**
   * The key prefix of this backup's snapshots: {@code <store prefix>/<backup name>/}, always under
   * {@code <namespace>/}: a configured prefix that does not start there is put below it, so no
   * EtcdBackup can write, list or delete (retention) another namespace's snapshots. An {@link
   * IllegalArgumentException} for a prefix no store accepts (for example with {@code ..}).
   */
  public static String prefix(EtcdBackup backup) {
    Store store = backup.getSpec().getStore();
    String ns = backup.getMetadata().getNamespace();
    String configured =
        store.getVolume() != null ? store.getVolume().getPrefix() : store.getS3().getPrefix();
    String base =
        configured == null
            ? ns + "/" + backup.getSpec().getClusterName()
            : configured.replaceAll("^/+|/+$", "");
    if (!base.equals(ns) && !base.startsWith(ns + "/")) {
      base = base.isEmpty() ? ns : ns + "/" + base;
    }
    return BackupKeys.validatePrefix(base + "/" + backup.getMetadata().getName() + "/");
  }

  /** True when the key lies under the prefix (retention deletes nothing else). */
  public static boolean within(String prefix, String key) {
    return key.startsWith(prefix) && !key.substring(prefix.length()).contains("..");
  }

  private static String decode(Secret secret, String key) {
    String value = secret.getData().get(key);
    if (value == null) {
      throw new IllegalArgumentException(
          "Secret " + secret.getMetadata().getName() + " has no key " + key);
    }
    return new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8).trim();
  }
}
