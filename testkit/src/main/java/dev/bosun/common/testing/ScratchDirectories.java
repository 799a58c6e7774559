package dev.bosun.common.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes the scratch directories tests create, so repeated runs do not fill the disk. */
public final class ScratchDirectories {

  private ScratchDirectories() {}

  /** Deletes {@code dir} and everything under it; a missing directory is fine. */
  public static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Like {@link #delete}, but a directory that cannot be walked is left behind quietly. */
  public static void deleteQuietly(Path dir) {
    try {
      delete(dir);
    } catch (UncheckedIOException e) {
      // Best effort at shutdown: a leftover directory is reported by nobody and harms nothing.
    }
  }
}
