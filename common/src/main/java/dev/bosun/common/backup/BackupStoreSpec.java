package dev.bosun.common.backup;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The {@code spec.store} of every backup kind (EtcdBackup, MySQLBackup): exactly one of the
 * operator's backup volume or an S3-compatible store. The CRDs' generated Java types use this type
 * (java-generator {@code existingJavaTypes}), so both operators read one shape.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BackupStoreSpec(Volume volume, S3 s3) {

  /** A directory of the operator's backup volume. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Volume(String prefix) {}

  /** A bucket (and key prefix) in an S3-compatible object store. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record S3(
      String endpoint,
      String region,
      String bucket,
      String prefix,
      Boolean pathStyle,
      SecretRef credentialsSecret) {}

  /** A Secret in the backup's namespace. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SecretRef(String name) {}

  /** A store on the operator's backup volume under {@code prefix} (null: the default). */
  public static BackupStoreSpec volume(String prefix) {
    return new BackupStoreSpec(new Volume(prefix), null);
  }

  /** A store in S3 with the default region and path-style addressing. */
  public static BackupStoreSpec s3(String endpoint, String bucket, String prefix, String secret) {
    return new BackupStoreSpec(
        null, new S3(endpoint, "us-east-1", bucket, prefix, true, new SecretRef(secret)));
  }
}
