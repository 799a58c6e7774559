package dev.bosun.etcd.restore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files of the backup directory a restore of a namespace may read, on a real directory. */
class SnapshotFilesTest {

  @TempDir Path tmp;
  Path root;
  Path snapshot;

  @BeforeEach
  void files() throws Exception {
    root = Files.createDirectories(tmp.resolve("backups"));
    snapshot = write(root.resolve("team/demo/nightly/1.db"), "snap");
    write(root.resolve("other/db/nightly/1.db"), "secret of another namespace");
    write(tmp.resolve("outside.db"), "not a backup");
  }

  static Path write(Path file, String content) throws Exception {
    Files.createDirectories(file.getParent());
    return Files.writeString(file, content);
  }

  @Test
  void aFileOfTheNamespaceIsItsRealPath() throws Exception {
    assertThat(SnapshotFiles.resolve(root, "team", "team/demo/nightly/1.db"))
        .contains(snapshot.toRealPath());
  }

  @Test
  void dotDotAndDotSegmentsAreRefusedEvenWhenTheyWouldStayInside() {
    assertThat(SnapshotFiles.resolve(root, "team", "team/../other/db/nightly/1.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team/demo/../demo/nightly/1.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team/./demo/nightly/1.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "../outside.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team//demo/nightly/1.db"))
        .as("an empty segment is normalised away by Path; the result is still the same file")
        .contains(snapshotReal());
  }

  @Test
  void absolutePathsAreRefused() {
    assertThat(SnapshotFiles.resolve(root, "team", snapshot.toString())).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "/etc/passwd")).isEmpty();
  }

  @Test
  void anotherNamespacesFilesAreRefused() {
    assertThat(SnapshotFiles.resolve(root, "team", "other/db/nightly/1.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "other", "team/demo/nightly/1.db")).isEmpty();
  }

  @Test
  void aLinkOutOfTheNamespaceIsRefused() throws Exception {
    Files.createSymbolicLink(root.resolve("team/demo/out.db"), tmp.resolve("outside.db"));
    Files.createSymbolicLink(
        root.resolve("team/demo/sideways.db"), root.resolve("other/db/nightly/1.db"));
    Files.createSymbolicLink(root.resolve("team/elsewhere"), root.resolve("other"));
    Files.createSymbolicLink(root.resolve("team/demo/inside.db"), snapshot);

    assertThat(SnapshotFiles.resolve(root, "team", "team/demo/out.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team/demo/sideways.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team/elsewhere/db/nightly/1.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team/demo/inside.db"))
        .as("a link that stays inside the namespace is the file it names")
        .contains(snapshotReal());
  }

  @Test
  void aNamespaceDirectoryThatLinksToAnotherNamespaceGivesNothing() throws Exception {
    Files.createSymbolicLink(root.resolve("linked"), root.resolve("other"));
    assertThat(SnapshotFiles.resolve(root, "linked", "linked/db/nightly/1.db")).isEmpty();
  }

  @Test
  void directoriesMissingFilesAndOddNamesGiveNothing() {
    assertThat(SnapshotFiles.resolve(root, "team", "team/demo")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team/demo/nightly/2.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", null)).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "team", "team/demo/nightly/1.db\0")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "..", "../outside.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root, "Team", "Team/x.db")).isEmpty();
    assertThat(SnapshotFiles.resolve(root.resolve("missing"), "team", "team/demo/nightly/1.db"))
        .isEmpty();
  }

  private Path snapshotReal() {
    try {
      return snapshot.toRealPath();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
