package dev.bosun.etcd.restore;

import java.net.URI;
import java.time.Instant;

/**
 * The snapshot a new cluster starts from, fetched by the first member's init container: an object
 * in an S3-compatible store (read with the EtcdBackup's credentials), or a file on the operator's
 * backup volume (served by the operator over HTTPS to the holder of a per-restore token).
 */
public sealed interface RestoreSource permits RestoreSource.S3, RestoreSource.Volume {

  /** The EtcdBackup it came from. */
  String backup();

  /** The snapshot's key in its store. */
  String key();

  /** When the snapshot was stored. */
  Instant takenAt();

  /** Where the snapshot is, for status and Events. */
  String location();

  /**
   * An object in an S3-compatible store.
   *
   * @param backup the EtcdBackup it came from
   * @param key the snapshot's key in the store
   * @param endpoint the store's URL
   * @param region the signing region
   * @param bucket the bucket
   * @param pathStyle path-style addressing
   * @param credentialsSecret Secret with accessKeyId and secretAccessKey (same namespace)
   * @param takenAt when the snapshot was stored
   */
  record S3(
      String backup,
      String key,
      String endpoint,
      String region,
      String bucket,
      boolean pathStyle,
      String credentialsSecret,
      Instant takenAt)
      implements RestoreSource {

    @Override
    public String location() {
      return "s3://" + bucket + "/" + key;
    }
  }

  /**
   * A file on the operator's backup volume.
   *
   * @param backup the EtcdBackup it came from
   * @param key the file's path relative to the backup directory (always under the namespace)
   * @param operatorUrl the operator's HTTPS restore endpoint as member Pods reach it
   * @param caBundle the CA (PEM) that endpoint's certificate verifies against
   * @param takenAt when the snapshot was stored
   */
  record Volume(String backup, String key, URI operatorUrl, String caBundle, Instant takenAt)
      implements RestoreSource {

    @Override
    public String location() {
      return "volume:" + key;
    }
  }
}
