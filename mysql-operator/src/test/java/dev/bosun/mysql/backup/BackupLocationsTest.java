package dev.bosun.mysql.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Every backup location stays inside its own namespace's tree. */
class BackupLocationsTest {

  @Test
  void aVolumeDirectoryIsForcedUnderTheNamespace() throws Exception {
    assertThat(BackupLocations.volumeDirectory("team-a", "nightly", "orders/nightly"))
        .isEqualTo("team-a/orders/nightly");
    assertThat(BackupLocations.volumeDirectory("team-a", "nightly", null))
        .isEqualTo("team-a/nightly");
    // Naming another tenant's tree only names a directory inside one's own.
    assertThat(BackupLocations.volumeDirectory("team-a", "x", "team-b/orders"))
        .isEqualTo("team-a/team-b/orders");
    assertThat(BackupLocations.volumeDirectory("team-a", "x", "/team-b/orders/"))
        .isEqualTo("team-a/team-b/orders");
  }

  @Test
  void escapingTheNamespaceIsRefused() {
    for (String escape : new String[] {"../team-b", "a/../../team-b", "./a", "a//b"}) {
      assertThatThrownBy(() -> BackupLocations.volumeDirectory("team-a", "x", escape))
          .isInstanceOf(BackupStores.StoreException.class)
          .hasMessageContaining("storage.volume.directory");
      assertThatThrownBy(() -> BackupLocations.s3Prefix("team-a", escape))
          .isInstanceOf(BackupStores.StoreException.class)
          .hasMessageContaining("storage.s3.prefix");
    }
  }

  @Test
  void anS3PrefixStartsWithTheNamespace() throws Exception {
    assertThat(BackupLocations.s3Prefix("team-a", "orders")).isEqualTo("team-a/orders");
    assertThat(BackupLocations.s3Prefix("team-a", null)).isEqualTo("team-a");
    assertThat(BackupLocations.s3Prefix("team-a", "/")).isEqualTo("team-a");
  }
}
