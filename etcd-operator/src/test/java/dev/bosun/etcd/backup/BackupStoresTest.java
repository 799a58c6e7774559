package dev.bosun.etcd.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupSpec;
import dev.bosun.etcd.v1alpha1.etcdbackupspec.Store;
import dev.bosun.etcd.v1alpha1.etcdbackupspec.store.S3;
import dev.bosun.etcd.v1alpha1.etcdbackupspec.store.Volume;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

class BackupStoresTest {

  static EtcdBackup volume(String prefix) {
    Store store = new Store();
    Volume v = new Volume();
    v.setPrefix(prefix);
    store.setVolume(v);
    return backup(store);
  }

  static EtcdBackup s3(String prefix) {
    Store store = new Store();
    S3 s = new S3();
    s.setPrefix(prefix);
    store.setS3(s);
    return backup(store);
  }

  static EtcdBackup backup(Store store) {
    EtcdBackup b = new EtcdBackup();
    b.setMetadata(new ObjectMetaBuilder().withName("nightly").withNamespace("team-a").build());
    EtcdBackupSpec spec = new EtcdBackupSpec();
    spec.setClusterName("demo");
    spec.setStore(store);
    b.setSpec(spec);
    return b;
  }

  @Test
  void theDefaultPrefixIsTheNamespaceAndCluster() {
    assertThat(BackupStores.prefix(volume(null))).isEqualTo("team-a/demo/nightly/");
    assertThat(BackupStores.prefix(s3(null))).isEqualTo("team-a/demo/nightly/");
  }

  @Test
  void aPrefixOutsideTheNamespaceIsPutBelowIt() {
    assertThat(BackupStores.prefix(volume("team-b/demo"))).isEqualTo("team-a/team-b/demo/nightly/");
    assertThat(BackupStores.prefix(s3("/team-b/"))).isEqualTo("team-a/team-b/nightly/");
    // A namespace whose name merely starts the same is another namespace.
    assertThat(BackupStores.prefix(s3("team-ab/x"))).isEqualTo("team-a/team-ab/x/nightly/");
    assertThat(BackupStores.prefix(s3("team-a/x"))).isEqualTo("team-a/x/nightly/");
    assertThat(BackupStores.prefix(s3("team-a"))).isEqualTo("team-a/nightly/");
  }

  @Test
  void aPrefixClimbingOutIsRefused() {
    assertThatThrownBy(() -> BackupStores.prefix(s3("team-a/../team-b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("..");
  }

  @Test
  void retentionOnlyTouchesKeysUnderThePrefix() {
    assertThat(BackupStores.within("team-a/demo/nightly/", "team-a/demo/nightly/1.db")).isTrue();
    assertThat(BackupStores.within("team-a/demo/nightly/", "team-b/demo/nightly/1.db")).isFalse();
    assertThat(BackupStores.within("team-a/demo/nightly/", "team-a/demo/nightly/../../x.db"))
        .isFalse();
  }
}
