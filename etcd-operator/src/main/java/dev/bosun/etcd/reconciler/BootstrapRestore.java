package dev.bosun.etcd.reconciler;

import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.restore.RestoreSources;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The snapshot a first member starts from when the spec asks for a restored cluster, or a disaster
 * recovery's restore; a wait instead of an empty cluster when there is none to use.
 */
final class BootstrapRestore {

  private final RestoreSources restoreSources;

  BootstrapRestore(RestoreSources restoreSources) {
    this.restoreSources = restoreSources;
  }

  /** {@code planned} with the snapshot its bootstrap restores, or a wait when there is none. */
  Planned find(EtcdCluster cluster, KubernetesClient client, Planned planned) {
    if (!(planned.step() instanceof Step.Bootstrap)) {
      return planned;
    }
    EtcdClusterStatus previous = cluster.getStatus();
    String backup = backup(cluster);
    if (backup == null && EtcdClusterReconciler.recovering(previous)) {
      // The old cluster is already stopped: starting an empty one instead would lose everything.
      return planned.withStep(
          new Step.Wait(
              "RecoveryBackupMissing",
              "disaster recovery from "
                  + previous.getRecoveringFrom()
                  + " has stopped the old members, but spec.disasterRecovery.restoreFromBackup"
                  + " is no longer set: set it again so the first member can be restored"));
    }
    if (backup == null) {
      return planned;
    }
    try {
      return planned.restoringFrom(
          restoreSources.newest(client, cluster.getMetadata().getNamespace(), backup));
    } catch (RestoreSources.NotRestorable e) {
      // Never start an empty cluster when a restored one was asked for.
      return planned.withStep(new Step.Wait(e.reason(), e.getMessage()));
    }
  }

  /** The EtcdBackup a first member restores from: a disaster recovery's, or the bootstrap's. */
  static String backup(EtcdCluster cluster) {
    if (EtcdClusterReconciler.recovering(cluster.getStatus())) {
      var dr = cluster.getSpec().getDisasterRecovery();
      return dr == null ? null : dr.getRestoreFromBackup();
    }
    var bootstrap = cluster.getSpec().getBootstrap();
    var fromBackup = bootstrap == null ? null : bootstrap.getFromBackup();
    return fromBackup == null ? null : fromBackup.getBackupName();
  }
}
