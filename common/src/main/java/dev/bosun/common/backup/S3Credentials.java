package dev.bosun.common.backup;

/** An access key pair for an S3-compatible store; its string form never shows the secret. */
public record S3Credentials(String accessKeyId, String secretAccessKey) {

  public S3Credentials {
    if (accessKeyId == null || accessKeyId.isBlank()) {
      throw new IllegalArgumentException("the S3 access key id is empty");
    }
    if (secretAccessKey == null || secretAccessKey.isBlank()) {
      throw new IllegalArgumentException("the S3 secret access key is empty");
    }
  }

  @Override
  public String toString() {
    return "S3Credentials[accessKeyId=" + accessKeyId + ", secretAccessKey=<hidden>]";
  }
}
