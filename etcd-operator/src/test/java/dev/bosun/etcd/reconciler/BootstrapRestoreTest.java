package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Bootstrap;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.DisasterRecovery;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.bootstrap.FromBackup;
import org.junit.jupiter.api.Test;

class BootstrapRestoreTest {

  private static EtcdCluster cluster(String bootstrapBackup, String recoveryBackup) {
    EtcdCluster cluster = new EtcdCluster();
    EtcdClusterSpec spec = new EtcdClusterSpec();
    if (bootstrapBackup != null) {
      FromBackup from = new FromBackup();
      from.setBackupName(bootstrapBackup);
      Bootstrap bootstrap = new Bootstrap();
      bootstrap.setFromBackup(from);
      spec.setBootstrap(bootstrap);
    }
    if (recoveryBackup != null) {
      DisasterRecovery dr = new DisasterRecovery();
      dr.setRestoreFromBackup(recoveryBackup);
      spec.setDisasterRecovery(dr);
    }
    cluster.setSpec(spec);
    return cluster;
  }

  @Test
  void aNewClusterRestoresFromItsBootstrapBackupOnly() {
    assertThat(BootstrapRestore.backup(cluster("seed", "nightly"))).isEqualTo("seed");
    assertThat(BootstrapRestore.backup(cluster(null, "nightly"))).isNull();
  }

  @Test
  void aDisasterRecoveryRestoresFromItsOwnBackup() {
    EtcdCluster recovering = cluster("seed", "nightly");
    EtcdClusterStatus status = new EtcdClusterStatus();
    status.setRecoveringFrom("s3://b/x.db");
    recovering.setStatus(status);
    assertThat(BootstrapRestore.backup(recovering)).isEqualTo("nightly");
    recovering.getSpec().setDisasterRecovery(null);
    assertThat(BootstrapRestore.backup(recovering)).isNull();
  }
}
