package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemBackupStoreTest {

  @TempDir Path root;

  private static InputStream bytes(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void writesListsReadsAndDeletes() throws IOException {
    var store = new FileSystemBackupStore(root);

    var first = store.write("ns/cluster/2026-01-01.db", bytes("one"));
    store.write("ns/cluster/2026-01-02.db", bytes("two!"));
    store.write("ns/other/2026-01-01.db", bytes("x"));

    assertThat(first.size()).isEqualTo(3);
    assertThat(first.location()).isEqualTo("file:" + root.resolve("ns/cluster/2026-01-01.db"));
    assertThat(store.list("ns/cluster/"))
        .extracting(StoredObject::key, StoredObject::size)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("ns/cluster/2026-01-01.db", 3L),
            org.assertj.core.groups.Tuple.tuple("ns/cluster/2026-01-02.db", 4L));
    try (InputStream in = store.read("ns/cluster/2026-01-02.db")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("two!");
    }

    store.delete("ns/cluster/2026-01-01.db");
    store.delete("ns/cluster/2026-01-01.db"); // already gone: not an error
    assertThat(store.list("ns/"))
        .extracting(StoredObject::key)
        .containsExactly("ns/cluster/2026-01-02.db", "ns/other/2026-01-01.db");
  }

  @Test
  void aFailedWriteLeavesNoBackupBehind() throws IOException {
    var store = new FileSystemBackupStore(root);
    InputStream failing =
        new InputStream() {
          private int n;

          @Override
          public int read() throws IOException {
            if (n++ > 100) {
              throw new IOException("connection to the member lost");
            }
            return 'a';
          }
        };

    assertThatThrownBy(() -> store.write("c/snap.db", failing)).hasMessageContaining("lost");
    assertThat(store.list("")).isEmpty();
    try (var files = Files.walk(root)) {
      assertThat(files.filter(Files::isRegularFile)).isEmpty();
    }
  }

  @Test
  void readingAMissingBackupSaysSo() {
    var store = new FileSystemBackupStore(root);
    assertThatThrownBy(() -> store.read("nope.db")).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void keysCannotEscapeTheStore() {
    var store = new FileSystemBackupStore(root);
    assertThatThrownBy(() -> store.write("../etc/passwd", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid path segment '..'");
    assertThatThrownBy(() -> store.write("/abs", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.write("a//b", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anEmptyStoreListsNothing() throws IOException {
    assertThat(new FileSystemBackupStore(root.resolve("not-yet")).list("")).isEmpty();
  }
}
