package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.LocalControlPlane;
import org.junit.jupiter.api.Test;

class ReleaseNotesTest {

  private static final String CHANGELOG =
      """
      # Changelog

      ## [Unreleased]

      ### Changed

      - **MySQL members
        restart once after the upgrade**: their container gains a setting.

      ## [0.1.0]

      - etcd members restart once after the upgrade.
      """;

  @Test
  void aRestartAnnouncedInUnreleasedCountsAcrossLinesAndBold() {
    assertThat(new ReleaseNotes(CHANGELOG).announcesRestartOf("MySQL members")).isTrue();
  }

  @Test
  void aRestartOnlyAnEarlierReleaseAnnouncedDoesNotCount() {
    assertThat(new ReleaseNotes(CHANGELOG).announcesRestartOf("etcd members")).isFalse();
    assertThat(new ReleaseNotes(CHANGELOG).announcesRestartOf("WebService Pods")).isFalse();
  }

  @Test
  void theRepositorysChangelogHasAnUnreleasedSection() {
    ReleaseNotes.of(LocalControlPlane.repoRoot().resolve("CHANGELOG.md"));
  }
}
