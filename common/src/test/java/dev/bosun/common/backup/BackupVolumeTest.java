package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One environment variable names the backup volume; an operator's older name still works. */
class BackupVolumeTest {

  @Test
  void theSharedNameWinsAndTheOlderOneIsAnAlias() {
    assertThat(BackupVolume.dir(Map.of("BOSUN_BACKUP_DIR", "/b"), "OLD")).contains(Path.of("/b"));
    assertThat(BackupVolume.dir(Map.of("OLD", " /old "), "OLD")).contains(Path.of("/old"));
    assertThat(BackupVolume.dir(Map.of("BOSUN_BACKUP_DIR", "/b", "OLD", "/old"), "OLD"))
        .contains(Path.of("/b"));
  }

  @Test
  void unsetOrBlankIsNoVolume() {
    assertThat(BackupVolume.dir(Map.of(), "OLD")).isEmpty();
    assertThat(BackupVolume.dir(Map.of("BOSUN_BACKUP_DIR", " ", "OLD", ""), "OLD")).isEmpty();
    assertThat(BackupVolume.dir(Map.of("OLD", "/old"))).isEmpty();
  }
}
