package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.testing.S3TestServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The S3 store against a real S3-compatible server that checks every signature. */
class S3BackupStoreIT {

  @TempDir static Path dir;
  static S3TestServer s3;

  @BeforeAll
  static void startServer() {
    s3 = S3TestServer.start(dir.resolve("objects"), "bosun-backups");
  }

  @AfterAll
  static void stopServer() {
    s3.close();
  }

  @Test
  void roundTripsABackupUnderItsPrefix() throws IOException {
    var store = new S3BackupStore(s3.location("team-a/etcd"), s3.credentials());
    byte[] snapshot = new byte[300_000];
    new Random(7).nextBytes(snapshot);

    StoredObject written =
        store.write("main/2026-01-01T00-00-00Z.db", new ByteArrayInputStream(snapshot));
    store.write("main/2026-01-02T00-00-00Z.db", new ByteArrayInputStream(new byte[] {1, 2}));
    store.write("other/x.db", new ByteArrayInputStream(new byte[] {3}));

    assertThat(written.size()).isEqualTo(snapshot.length);
    assertThat(written.location())
        .isEqualTo("s3://bosun-backups/team-a/etcd/main/2026-01-01T00-00-00Z.db");
    assertThat(store.list("main/"))
        .extracting(StoredObject::key, StoredObject::size)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("main/2026-01-01T00-00-00Z.db", 300_000L),
            org.assertj.core.groups.Tuple.tuple("main/2026-01-02T00-00-00Z.db", 2L));
    assertThat(store.list("main/")).allSatisfy(o -> assertThat(o.lastModified()).isNotNull());
    try (InputStream in = store.read("main/2026-01-01T00-00-00Z.db")) {
      assertThat(in.readAllBytes()).isEqualTo(snapshot);
    }

    store.delete("main/2026-01-01T00-00-00Z.db");
    store.delete("main/2026-01-01T00-00-00Z.db"); // already gone: not an error
    assertThat(store.list(""))
        .extracting(StoredObject::key)
        .containsExactly("main/2026-01-02T00-00-00Z.db", "other/x.db");
  }

  @Test
  void aMissingBackupIsNoSuchFile() {
    var store = new S3BackupStore(s3.location("missing"), s3.credentials());
    assertThatThrownBy(() -> store.read("nothing-here.db"))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("s3://bosun-backups/missing/nothing-here.db");
  }

  @Test
  void refusedCredentialsGiveTheStoresReasonAndNeverTheSecret() {
    // s3rver checks the access key id; the SDK signs the requests.
    var store =
        new S3BackupStore(
            s3.location("x"), new S3Credentials("NO-SUCH-KEY", "not-the-secret-shown-anywhere"));
    assertThatThrownBy(
            () ->
                store.write("a.db", new ByteArrayInputStream("x".getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("HTTP 403")
        .hasMessageContaining("InvalidAccessKeyId")
        .message()
        .doesNotContain("not-the-secret-shown-anywhere");
  }

  @Test
  void listsEveryPageOfALargeBucket() throws IOException {
    var store = new S3BackupStore(s3.location("many"), s3.credentials());
    for (int i = 0; i < 1005; i++) {
      store.write("k/%04d".formatted(i), new ByteArrayInputStream(new byte[0]));
    }
    assertThat(store.list("k/"))
        .hasSize(1005)
        .first()
        .extracting(StoredObject::key)
        .isEqualTo("k/0000");
  }
}
