package dev.bosun.etcd.restore;

/**
 * The snapshot a new cluster starts from: an object in an S3-compatible store, fetched by the first
 * member's init container with the EtcdBackup's credentials.
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
public record RestoreSource(
    String backup,
    String key,
    String endpoint,
    String region,
    String bucket,
    boolean pathStyle,
    String credentialsSecret,
    java.time.Instant takenAt) {

  /** Where in the store the snapshot is, for status and Events. */
  public String location() {
    return "s3://" + bucket + "/" + key;
  }
}
