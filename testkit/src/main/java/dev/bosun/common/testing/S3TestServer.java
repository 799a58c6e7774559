package dev.bosun.common.testing;

import dev.bosun.common.backup.S3Credentials;
import dev.bosun.common.backup.S3Location;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real S3-compatible object store for tests: s3rver (installed from npm once by {@code
 * hack/install-workloads.sh}) on 127.0.0.1 with one bucket. It checks the access key id, but it
 * does not verify SigV4 signatures: the signer is checked against AWS's published example in a unit
 * test instead.
 */
public final class S3TestServer implements AutoCloseable {

  /** s3rver's built-in key pair (the only access key id it accepts). */
  public static final S3Credentials CREDENTIALS = new S3Credentials("S3RVER", "S3RVER");

  private final LocalProcess process;
  private final int port;
  private final String bucket;

  private S3TestServer(LocalProcess process, int port, String bucket) {
    this.process = process;
    this.port = port;
    this.bucket = bucket;
  }

  /** Starts a server keeping its objects under {@code dir}, with {@code bucket} created. */
  public static S3TestServer start(Path dir, String bucket) {
    Path bin = InstallScript.run("install-workloads.sh");
    int port = LocalProcess.freePort("127.0.0.1");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    LocalProcess process =
        LocalProcess.start(
            "s3rver",
            List.of(
                "node",
                // s3rver ciphers list continuation tokens with DES, which OpenSSL 3 keeps in its
                // legacy provider.
                "--openssl-legacy-provider",
                bin.resolve("s3rver").toString(),
                "--directory",
                dir.toString(),
                "--address",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--silent",
                "--no-vhost-buckets",
                "--configure-bucket",
                bucket),
            dir.resolveSibling(dir.getFileName() + "-s3rver.log"));
    process.awaitPort("127.0.0.1", port, Duration.ofSeconds(30));
    return new S3TestServer(process, port, bucket);
  }

  /** http://127.0.0.1:port */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The bucket created at start. */
  public String bucket() {
    return bucket;
  }

  /** The key pair the server accepts. */
  public S3Credentials credentials() {
    return CREDENTIALS;
  }

  /** A path-style location in the bucket under {@code prefix}. */
  public S3Location location(String prefix) {
    return new S3Location(endpoint(), "us-east-1", bucket, prefix, true);
  }

  @Override
  public void close() {
    process.stop();
  }
}
