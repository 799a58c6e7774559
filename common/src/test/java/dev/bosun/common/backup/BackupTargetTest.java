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
  void retentionOnlyTouchesKeysThisBackupWrote() {
    assertThat(target().within("team-a/demo/nightly/20261124T020000Z.db")).isTrue();
    assertThat(target().within("team-b/demo/nightly/20261124T020000Z.db")).isFalse();
    assertThat(target().within("team-a/demo/nightly/../../20261124T020000Z.db")).isFalse();
    // Another backup whose prefix lies below this one's, and files other features keep there.
    assertThat(target().within("team-a/demo/nightly/hourly/20261124T020000Z.db")).isFalse();
    assertThat(target().within("team-a/demo/nightly/db-2-2026-11-24T02-00-00Z.sql")).isFalse();
  }

  @Test
  void aBackupWhosePrefixLiesBelowAnotherOnesIsNeverPrunedByIt() throws Exception {
    write("team-a/demo/nightly/20261124T010000Z.db", 100);
    write("team-a/demo/nightly/20261124T020000Z.db", 200);
    write("team-a/demo/nightly/hourly/20261124T000000Z.db", 50);
    write("team-a/demo/nightly/db-2-2026-11-24T00-00-00Z.sql", 40);

    target().retain(1);

    assertThat(root.resolve("team-a/demo/nightly/20261124T010000Z.db")).doesNotExist();
    assertThat(root.resolve("team-a/demo/nightly/hourly/20261124T000000Z.db")).exists();
    assertThat(root.resolve("team-a/demo/nightly/db-2-2026-11-24T00-00-00Z.sql")).exists();
  }

  @Test
  void retainKeepsTheNewestAndListsThemOldestFirst() throws Exception {
    write("team-a/demo/nightly/20261124T010000Z.db", 100);
    write("team-a/demo/nightly/20261124T020000Z.db", 200);
    write("team-a/demo/nightly/20261124T030000Z.db", 300);
    write("team-a/demo/nightlyx/20261124T000000Z.db", 50);

    List<BackupRecord> kept = target().retain(2);

    assertThat(kept)
        .extracting(BackupRecord::key)
        .containsExactly(
            "team-a/demo/nightly/20261124T020000Z.db", "team-a/demo/nightly/20261124T030000Z.db");
    assertThat(kept.get(0).size()).isEqualTo(3L);
    assertThat(kept.get(0).location()).startsWith("file:");
    assertThat(Files.exists(root.resolve("team-a/demo/nightly/20261124T010000Z.db"))).isFalse();
    assertThat(Files.exists(root.resolve("team-a/demo/nightlyx/20261124T000000Z.db"))).isTrue();
    assertThat(target().newest())
        .map(StoredObject::key)
        .hasValue("team-a/demo/nightly/20261124T030000Z.db");
  }

  @Test
  void aRestoreLoadsTheNamedKeyOfThisBackupOrTheNewest() throws Exception {
    assertThat(target().restoreKey(null)).isEmpty();
    write("team-a/demo/nightly/20261124T010000Z.db", 100);
    write("team-a/demo/nightly/20261124T020000Z.db", 200);

    assertThat(target().restoreKey(null)).hasValue("team-a/demo/nightly/20261124T020000Z.db");
    assertThat(target().restoreKey("team-a/demo/nightly/20261124T010000Z.db"))
        .hasValue("team-a/demo/nightly/20261124T010000Z.db");
    assertThatThrownBy(() -> target().restoreKey("team-b/demo/nightly/20261124T010000Z.db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "team-b/demo/nightly/20261124T010000Z.db is not a key of this backup (its keys start"
                + " with team-a/demo/nightly/)");
  }
}
