package dev.bosun.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The Unreleased section of CHANGELOG.md: what an upgrade to the current charts announces. A
 * workload Pod may restart in an upgrade only where this says "&lt;workload&gt; restart" (for
 * example "MySQL members restart once after the upgrade").
 */
final class ReleaseNotes {

  private final String unreleased;

  ReleaseNotes(String changelog) {
    int start = changelog.indexOf("## [Unreleased]");
    if (start < 0) {
      throw new IllegalArgumentException("the changelog has no [Unreleased] section");
    }
    int end = changelog.indexOf("\n## [", start + 1);
    this.unreleased = changelog.substring(start, end < 0 ? changelog.length() : end);
  }

  /** The repository's CHANGELOG.md. */
  static ReleaseNotes of(Path changelog) {
    try {
      return new ReleaseNotes(Files.readString(changelog));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True when the Unreleased section announces that {@code workload}'s Pods restart. */
  boolean announcesRestartOf(String workload) {
    // Markdown may break the sentence over lines or put it in bold.
    String text = unreleased.replaceAll("[*\\s]+", " ").toLowerCase(Locale.ROOT);
    return text.contains(workload.toLowerCase(Locale.ROOT) + " restart");
  }
}
