package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys, listing and retention of one backup inside a shared store. */
class BackupTargetTest {

  @TempDir Path root;

  private BackupTarget target() {
    return new BackupTarget(new FileSystemBackupStore(root), "team-a/demo/nightly/");
  }

  private void write(String key, long epochSecond) throws Exception {
    target().store().write(key, new ByteArrayInputStream(new byte[] {1, 2, 3}));
    Files.setLastModifiedTime(root.resolve(key), FileTime.from(Instant.ofEpochSecond(epochSecond)));
  }

  @Test
  void aKeyIsThePrefixAndTheUtcTime() {
    assertThat(target().newKey(Instant.parse("2026-11-24T02:00:00.123Z"), "sql"))
        .isEqualTo("team-a/demo/nightly/20261124T020000Z.sql");
  }

  @Test
  void retentionOnlyTouchesKeysUnderThePrefix() {
    assertThat(target().within("team-a/demo/nightly/1.db")).isTrue();
    assertThat(target().within("team-b/demo/nightly/1.db")).isFalse();
    assertThat(target().within("team-a/demo/nightly/../../x.db")).isFalse();
  }

  @Test
  void retainKeepsTheNewestAndListsThemOldestFirst() throws Exception {
    write("team-a/demo/nightly/a.db", 100);
    write("team-a/demo/nightly/b.db", 200);
    write("team-a/demo/nightly/c.db", 300);
    write("team-a/demo/nightlyx/other.db", 50);

    List<BackupRecord> kept = target().retain(2);

    assertThat(kept)
        .extracting(BackupRecord::key)
        .containsExactly("team-a/demo/nightly/b.db", "team-a/demo/nightly/c.db");
    assertThat(kept.get(0).size()).isEqualTo(3L);
    assertThat(kept.get(0).location()).startsWith("file:");
    assertThat(Files.exists(root.resolve("team-a/demo/nightly/a.db"))).isFalse();
    assertThat(Files.exists(root.resolve("team-a/demo/nightlyx/other.db"))).isTrue();
    assertThat(target().newest()).map(StoredObject::key).hasValue("team-a/demo/nightly/c.db");
  }

  @Test
  void aRestoreLoadsTheNamedKeyOfThisBackupOrTheNewest() throws Exception {
    assertThat(target().restoreKey(null)).isEmpty();
    write("team-a/demo/nightly/a.db", 100);
    write("team-a/demo/nightly/b.db", 200);

    assertThat(target().restoreKey(null)).hasValue("team-a/demo/nightly/b.db");
    assertThat(target().restoreKey("team-a/demo/nightly/a.db"))
        .hasValue("team-a/demo/nightly/a.db");
    assertThatThrownBy(() -> target().restoreKey("team-b/demo/nightly/a.db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "team-b/demo/nightly/a.db is not a key of this backup (its keys start with"
                + " team-a/demo/nightly/)");
  }
}
