package dev.bosun.common.backup;

import java.net.URI;

/**
 * A place in an S3-compatible object store: the endpoint ({@code
 * https://s3.eu-west-1.amazonaws.com}, a MinIO or Ceph URL), the signing region, the bucket, a key
 * prefix, and whether the bucket goes in the path (most self-hosted stores) or in the host name
 * (AWS's virtual-hosted style).
 */
public record S3Location(
    URI endpoint, String region, String bucket, String prefix, boolean pathStyle) {

  public S3Location {
    if (endpoint == null || endpoint.getHost() == null) {
      throw new IllegalArgumentException("an S3 endpoint needs a scheme and a host: " + endpoint);
    }
    if (!"http".equals(endpoint.getScheme()) && !"https".equals(endpoint.getScheme())) {
      throw new IllegalArgumentException("an S3 endpoint is http or https: " + endpoint);
    }
    if (region == null || region.isBlank()) {
      throw new IllegalArgumentException("an S3 location needs a region (e.g. us-east-1)");
    }
    if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException("not a valid S3 bucket name: " + bucket);
    }
    prefix = prefix == null ? "" : prefix.replaceAll("^/+|/+$", "");
    if (!prefix.isEmpty()) {
      BackupKeys.validate(prefix);
    }
  }

  /** The object key of a store key: the prefix, a slash, the key. */
  public String objectKey(String key) {
    return prefix.isEmpty() ? key : prefix + "/" + key;
  }
}
