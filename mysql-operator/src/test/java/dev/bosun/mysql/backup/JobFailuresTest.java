package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.execute.InstanceException;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A failed dump or load, said to a person: the cause, never an exception's class or stack. */
class JobFailuresTest {

  @Test
  void theOperatorsOwnSentencesAreKept() {
    assertThat(
            JobFailures.describe(
                new InstanceException(
                    "mariadb-dump exited with 2: mariadb-dump: Got error: 1045: \"Access denied"
                        + " for user 'operator'@'10.0.0.7' (using password: YES)\" when trying to"
                        + " connect")))
        .isEqualTo(
            "mariadb-dump exited with 2: mariadb-dump: Got error: 1045: \"Access denied for user"
                + " 'operator'@'10.0.0.7' (using password: YES)\" when trying to connect");
    assertThat(
            JobFailures.describe(
                new InstanceException(
                    "db-1:3306: query failed: SQL error 1045 (state 28000)",
                    new SQLException("Access denied for user 'operator'", "28000", 1045))))
        .isEqualTo("db-1:3306: query failed: SQL error 1045 (state 28000)");
    assertThat(
            JobFailures.describe(
                new BackupStoreException(
                    BackupStoreException.STORE_UNAVAILABLE,
                    "Secret s3-creds with the S3 credentials does not exist")))
        .isEqualTo("Secret s3-creds with the S3 credentials does not exist");
  }

  @Test
  void aFileOfTheBackupVolumeIsNamedWithTheSystemsReason() {
    assertThat(
            JobFailures.describe(
                new FileSystemException(
                    "/backups/shop/nightly/db-20261124T020000Z.sql",
                    null,
                    "No space left on device")))
        .isEqualTo("/backups/shop/nightly/db-20261124T020000Z.sql: No space left on device");
    assertThat(JobFailures.describe(new AccessDeniedException("/backups/shop")))
        .isEqualTo("the operator may not read or write /backups/shop");
    assertThat(
            JobFailures.describe(new UncheckedIOException(new NoSuchFileException("/backups/x"))))
        .isEqualTo("/backups/x does not exist");
    assertThat(
            JobFailures.describe(
                new NoSuchFileException(
                    "s3://b/shop/x.sql", null, "no such backup (NoSuchKey: gone)")))
        .isEqualTo("s3://b/shop/x.sql: no such backup (NoSuchKey: gone)");
  }

  @Test
  void anUnreachableStoreIsSaidSoAndNotBlamedOnTheApiServer() {
    assertThat(JobFailures.describe(new IOException(new ConnectException())))
        .isEqualTo("the backup store could not be reached");
    assertThat(JobFailures.describe(new HttpConnectTimeoutException("HTTP connect timed out")))
        .isEqualTo("the backup store could not be reached");
    assertThat(JobFailures.describe(new UnknownHostException("minio.backup.svc")))
        .isEqualTo("the backup store's host name cannot be resolved");
    assertThat(
            JobFailures.describe(
                new IOException(
                    "upload s3://b/x.sql failed: HTTP 403 (AccessDenied: Access Denied)")))
        .isEqualTo(
            "reading or writing the backup failed: upload s3://b/x.sql failed: HTTP 403"
                + " (AccessDenied: Access Denied)");
    assertThat(JobFailures.describe(new IOException("java.io.IOException: boom@1f2e")))
        .isEqualTo("reading or writing the backup failed; the operator's log has the details");
  }

  @Test
  void anApiServerRefusalIsItsOwnMessage() {
    var refused =
        new KubernetesClientException(
            new StatusBuilder()
                .withCode(403)
                .withMessage("secrets \"s3-creds\" is forbidden: User cannot get resource")
                .build());
    assertThat(JobFailures.describe(refused))
        .isEqualTo(
            "the API server refused the request: secrets \"s3-creds\" is forbidden: User cannot get"
                + " resource");
  }

  @Test
  void aBugNamesNeitherItsClassNorItsMessage() {
    String said = JobFailures.describe(new IllegalStateException("offset 0x7f3a out of range"));
    assertThat(said).isEqualTo("an internal error occurred; the operator's log has the details");
  }

  @Test
  void noSentenceCarriesAnExceptionOrALineBreak() {
    for (Throwable t :
        List.of(
            new NullPointerException(),
            new IOException(),
            new InstanceException("line one\n\tat dev.bosun.X.y(X.java:1)\n" + "x".repeat(2000)),
            new RuntimeException(new IOException("java.net.SocketException: reset")))) {
      String said = JobFailures.describe(t);
      assertThat(said)
          .as(t.toString())
          .doesNotContain("Exception")
          .doesNotContain("\n")
          .doesNotContain("\tat ");
      assertThat(said.length()).isLessThanOrEqualTo(HumanMessages.MAX_LENGTH);
    }
  }
}
