package dev.bosun.mysql.backup;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.common.backup.S3BackupStore;
import dev.bosun.common.backup.S3Credentials;
import dev.bosun.common.backup.S3Location;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

/** Opens the store a MySQLBackup names: a directory of the operator's backup volume, or S3. */
public final class BackupStores {

  private final KubernetesClient client;
  private final Path volumeRoot;

  /** Stores under {@code volumeRoot} (the operator's backup volume) or in S3. */
  public BackupStores(KubernetesClient client, Path volumeRoot) {
    this.client = client;
    this.volumeRoot = volumeRoot;
  }

  /** Why a store cannot be opened (a message for a condition, no secret in it). */
  public static final class StoreException extends Exception {
    public StoreException(String message) {
      super(message);
    }
  }

  /** The store of a backup. */
  public BackupStore open(MySQLBackup b) throws StoreException {
    var storage = b.getSpec().getStorage();
    if (storage == null || (storage.getVolume() == null) == (storage.getS3() == null)) {
      throw new StoreException("storage takes exactly one of volume or s3");
    }
    if (storage.getVolume() != null) {
      if (volumeRoot == null) {
        throw new StoreException(
            "the operator has no backup volume (chart value backupVolume); use s3 storage");
      }
      // Always under <namespace>/: a directory names a place inside the tenant's own tree.
      String dir =
          BackupLocations.volumeDirectory(
              b.getMetadata().getNamespace(),
              b.getMetadata().getName(),
              storage.getVolume().getDirectory());
      return new FileSystemBackupStore(volumeRoot.resolve(dir));
    }
    var s3 = storage.getS3();
    // Checked before the Secret is read: a spec mistake needs no API call to be named.
    if (s3.getEndpoint() == null || s3.getEndpoint().isBlank()) {
      throw new StoreException("invalid S3 storage: s3.endpoint is required");
    }
    URI endpoint;
    try {
      endpoint = new URI(s3.getEndpoint());
    } catch (URISyntaxException e) {
      throw new StoreException(
          "invalid S3 storage: endpoint " + s3.getEndpoint() + " is not a valid URL");
    }
    Secret secret =
        client
            .secrets()
            .inNamespace(b.getMetadata().getNamespace())
            .withName(s3.getCredentialsSecret().getName())
            .get();
    if (secret == null) {
      throw new StoreException(
          "Secret "
              + s3.getCredentialsSecret().getName()
              + " with the S3 credentials does not exist");
    }
    String id = value(secret, "accessKeyId");
    String key = value(secret, "secretAccessKey");
    if (id == null || key == null) {
      throw new StoreException(
          "Secret "
              + s3.getCredentialsSecret().getName()
              + " needs non-empty keys accessKeyId and secretAccessKey");
    }
    try {
      return new S3BackupStore(
          new S3Location(
              endpoint,
              s3.getRegion() == null ? "us-east-1" : s3.getRegion(),
              s3.getBucket(),
              BackupLocations.s3Prefix(b.getMetadata().getNamespace(), s3.getPrefix()),
              s3.getPathStyle() == null || s3.getPathStyle()),
          new S3Credentials(id, key));
    } catch (IllegalArgumentException e) {
      // S3Location and S3Credentials name the rule a value breaks, in a sentence.
      throw new StoreException("invalid S3 storage: " + e.getMessage());
    }
  }

  private static String value(Secret s, String key) {
    if (s.getData() != null && s.getData().get(key) != null) {
      String v =
          new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
      return v.isBlank() ? null : v;
    }
    return null;
  }
}
