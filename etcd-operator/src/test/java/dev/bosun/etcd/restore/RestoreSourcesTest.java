package dev.bosun.etcd.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.backup.BackupStoreSpec;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restore sources of EtcdBackups on the operator's backup volume, on a real directory. (The volume
 * store needs no API server, so no client is given.)
 */
class RestoreSourcesTest {

  static final URI OPERATOR = URI.create("https://ops-restore.bosun-system.svc:8443");
  static final String CA = RestoreSecretsTest.CA;

  @TempDir Path root;

  static EtcdBackup volumeBackup() {
    EtcdBackup b = new EtcdBackup();
    b.setMetadata(new ObjectMetaBuilder().withName("nightly").withNamespace("team").build());
    EtcdBackupSpec spec = new EtcdBackupSpec();
    spec.setClusterName("demo");
    BackupStoreSpec store = BackupStoreSpec.volume(null);
    spec.setStore(store);
    b.setSpec(spec);
    return b;
  }

  void snapshot(String key, Instant modified) throws Exception {
    Path file = root.resolve(key);
    Files.createDirectories(file.getParent());
    Files.writeString(file, key);
    Files.setLastModifiedTime(file, FileTime.from(modified));
  }

  @Test
  void aVolumeSnapshotIsRestorableWhenTheOperatorServesIt() throws Exception {
    snapshot("team/demo/nightly/20240101T000000Z.db", Instant.parse("2024-01-01T00:00:00Z"));
    snapshot("team/demo/nightly/20240102T000000Z.db", Instant.parse("2024-01-02T00:00:00Z"));
    snapshot("team/demo/other/20240103T000000Z.db", Instant.parse("2024-01-03T00:00:00Z"));

    RestoreSource source =
        new RestoreSources(Optional.of(root), Optional.of(OPERATOR), () -> CA)
            .newest(null, volumeBackup());

    assertThat(source)
        .isEqualTo(
            new RestoreSource.Volume(
                "nightly",
                "team/demo/nightly/20240102T000000Z.db",
                OPERATOR,
                CA,
                Instant.parse("2024-01-02T00:00:00Z")));
    assertThat(source.location()).isEqualTo("volume:team/demo/nightly/20240102T000000Z.db");
  }

  @Test
  void withoutTheOperatorsUrlAVolumeSnapshotIsRefusedSayingWhy() throws Exception {
    snapshot("team/demo/nightly/20240101T000000Z.db", Instant.parse("2024-01-01T00:00:00Z"));

    assertThatThrownBy(
            () ->
                new RestoreSources(Optional.of(root), Optional.empty(), () -> CA)
                    .newest(null, volumeBackup()))
        .isInstanceOfSatisfying(
            RestoreSources.NotRestorable.class,
            e -> assertThat(e.reason()).isEqualTo("BackupNotRestorable"))
        .hasMessageContaining("BOSUN_OPERATOR_URL")
        .hasMessageContaining("backup.volume.enabled");
  }

  @Test
  void withoutTheBackupVolumeAVolumeSnapshotIsRefusedSayingWhy() {
    assertThatThrownBy(
            () ->
                new RestoreSources(Optional.empty(), Optional.of(OPERATOR), () -> CA)
                    .newest(null, volumeBackup()))
        .isInstanceOfSatisfying(
            RestoreSources.NotRestorable.class,
            e -> assertThat(e.reason()).isEqualTo("BackupNotRestorable"))
        .hasMessageContaining("does not mount")
        .hasMessageContaining("backup.volume.enabled");
  }

  @Test
  void aVolumeBackupWithoutSnapshotsIsWaitedFor() {
    assertThatThrownBy(
            () ->
                new RestoreSources(Optional.of(root), Optional.of(OPERATOR), () -> CA)
                    .newest(null, volumeBackup()))
        .isInstanceOfSatisfying(
            RestoreSources.NotRestorable.class,
            e -> assertThat(e.reason()).isEqualTo("WaitingForBackup"))
        .hasMessageContaining("no snapshot yet");
  }
}
