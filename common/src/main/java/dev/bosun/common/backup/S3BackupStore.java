package dev.bosun.common.backup;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Backups in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, …), through the AWS SDK's S3 client.
 * A backup is uploaded in one PUT once it is complete (spooled to a temporary file first, which
 * gives the request its length without holding the backup in memory), so a half-written backup is
 * never visible; the S3 limit of 5 GiB per PUT applies.
 */
public final class S3BackupStore implements BackupStore {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration UPLOAD_TIMEOUT = Duration.ofMinutes(30);

  /*
   * Callers open a store per reconciliation and never close it: the HTTP client (no threads of
   * its own) and the timer the SDK enforces call timeouts with are shared, so an S3Client left to
   * the garbage collector holds nothing that needs closing.
   */
  private static final SdkHttpClient HTTP =
      UrlConnectionHttpClient.builder()
          .connectionTimeout(CONNECT_TIMEOUT)
          .socketTimeout(READ_TIMEOUT)
          .build();
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bosun-s3-timeouts");
            t.setDaemon(true);
            return t;
          });

  private final S3Location where;
  private final S3Client s3;
  private final Clock clock;

  public S3BackupStore(S3Location where, S3Credentials credentials) {
    this.where = where;
    this.clock = Clock.systemUTC();
    this.s3 =
        S3Client.builder()
            .httpClient(HTTP)
            .endpointOverride(where.endpoint())
            .region(Region.of(where.region()))
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(
                        credentials.accessKeyId(), credentials.secretAccessKey())))
            // A plainly signed body (the SDK hashes the spooled file), not aws-chunked
            // encoding, which not every S3-compatible store decodes.
            .serviceConfiguration(
                S3Configuration.builder()
                    .pathStyleAccessEnabled(where.pathStyle())
                    .chunkedEncodingEnabled(false)
                    .build())
            // Checksums only where S3 demands them: self-hosted stores (older MinIO, Ceph)
            // refuse the CRC trailers newer SDKs send by default.
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .overrideConfiguration(
                ClientOverrideConfiguration.builder()
                    .addExecutionInterceptor(new NoExpectContinue())
                    .apiCallTimeout(CALL_TIMEOUT)
                    .scheduledExecutorService(TIMER)
                    .build())
            .build();
  }

  @Override
  public StoredObject write(String key, InputStream content) throws IOException {
    BackupKeys.validate(key);
    Path spool = Files.createTempFile("bosun-s3-upload-", ".part");
    try {
      long size = Files.copy(content, spool, StandardCopyOption.REPLACE_EXISTING);
      try {
        s3.putObject(
            r ->
                r.bucket(where.bucket())
                    .key(where.objectKey(key))
                    .contentLength(size)
                    .overrideConfiguration(o -> o.apiCallTimeout(UPLOAD_TIMEOUT)),
            RequestBody.fromFile(spool));
      } catch (SdkException e) {
        throw failure("upload " + location(key), e);
      }
      return new StoredObject(key, size, clock.instant(), location(key));
    } finally {
      Files.deleteIfExists(spool);
    }
  }

  @Override
  public InputStream read(String key) throws IOException {
    BackupKeys.validate(key);
    try {
      return s3.getObject(r -> r.bucket(where.bucket()).key(where.objectKey(key)));
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        throw new NoSuchFileException(location(key), null, "no such backup" + errorOf(e));
      }
      throw failure("download " + location(key), e);
    } catch (SdkException e) {
      throw failure("download " + location(key), e);
    }
  }

  @Override
  public List<StoredObject> list(String prefix) throws IOException {
    String p = BackupKeys.validatePrefix(prefix);
    String base = where.prefix().isEmpty() ? "" : where.prefix() + "/";
    List<StoredObject> found = new ArrayList<>();
    try {
      for (S3Object item :
          s3.listObjectsV2Paginator(r -> r.bucket(where.bucket()).prefix(base + p)).contents()) {
        String key = item.key().substring(base.length());
        found.add(new StoredObject(key, item.size(), item.lastModified(), location(key)));
      }
    } catch (SdkException e) {
      throw failure("list " + location(p), e);
    }
    found.sort(Comparator.comparing(StoredObject::key));
    return found;
  }

  @Override
  public void delete(String key) throws IOException {
    BackupKeys.validate(key);
    try {
      s3.deleteObject(r -> r.bucket(where.bucket()).key(where.objectKey(key)));
    } catch (S3Exception e) {
      if (e.statusCode() != 404) {
        throw failure("delete " + location(key), e);
      }
    } catch (SdkException e) {
      throw failure("delete " + location(key), e);
    }
  }

  @Override
  public String location(String key) {
    return "s3://" + where.bucket() + "/" + where.objectKey(key);
  }

  /**
   * A sentence for a status: what failed and the store's answer (its error code and message) or why
   * there was none. The SDK's own message (request ids, hints about SDK settings) stays in the
   * cause for the log; the network cause stays in the chain, where failure wordings look for it.
   */
  private IOException failure(String what, SdkException e) {
    if (e instanceof S3Exception s) {
      return new IOException(what + " failed: HTTP " + s.statusCode() + errorOf(s), e);
    }
    return new IOException(what + " failed: " + reasonWithoutAnswer(e), e);
  }

  private String reasonWithoutAnswer(SdkException e) {
    if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
      return "the object store did not answer in time";
    }
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof UnknownHostException) {
        return "the object store's host name cannot be resolved (" + where.endpoint() + ")";
      }
      if (t instanceof ConnectException) {
        return "the object store at " + where.endpoint() + " could not be reached";
      }
      if (t instanceof SocketTimeoutException) {
        return "the object store did not answer in time";
      }
    }
    return "the connection to the object store at " + where.endpoint() + " failed";
  }

  /** " (Code: …, Message: …)" of the store's error answer, never the request (no credentials). */
  private static String errorOf(S3Exception e) {
    var details = e.awsErrorDetails();
    if (details == null) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    if (details.errorCode() != null && !details.errorCode().isBlank()) {
      out.append("Code: ").append(details.errorCode());
    }
    if (details.errorMessage() != null && !details.errorMessage().isBlank()) {
      out.append(out.isEmpty() ? "" : ", ").append("Message: ").append(details.errorMessage());
    }
    return out.isEmpty() ? "" : " (" + out + ")";
  }

  /**
   * Drops the "Expect: 100-continue" header S3's own interceptor puts on every upload. Through the
   * JDK's HttpURLConnection a store that refuses the request before the body (wrong key, no bucket)
   * then left the client waiting up to 5 s for a "100" and retrying on a reset connection, so a
   * refused upload ended after about 24 s as "the connection failed" instead of the store's own
   * answer. Backups are spooled to a file first, so sending the body at once costs nothing.
   */
  private static final class NoExpectContinue implements ExecutionInterceptor {
    @Override
    public SdkHttpRequest modifyHttpRequest(
        Context.ModifyHttpRequest context, ExecutionAttributes executionAttributes) {
      return context.httpRequest().toBuilder().removeHeader("Expect").build();
    }
  }
}
