package dev.bosun.etcd.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The explicit opt-in ({@code spec.disasterRecovery.restoreFromBackup}) for a cluster that stays
 * without quorum: its members are stopped, their volumes are kept (labelled retained, never
 * deleted: they are the only copy of what was written after the snapshot), and a new cluster is
 * started from the newest snapshot. Off by default: the operator then only reports QuorumLost.
 */
final class DisasterRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(DisasterRecovery.class);

  private DisasterRecovery() {}

  /** True when the cluster opted in and quorum has been lost for longer than it allows. */
  static boolean due(EtcdCluster cluster, ZonedDateTime quorumLostSince, ZonedDateTime now) {
    var dr = cluster.getSpec().getDisasterRecovery();
    if (dr == null || dr.getRestoreFromBackup() == null || quorumLostSince == null) {
      return false;
    }
    int after = dr.getAfterSeconds() == null ? 300 : dr.getAfterSeconds();
    return !quorumLostSince.plus(Duration.ofSeconds(after)).isAfter(now);
  }

  /** Stops every member and keeps every volume. */
  static void stopMembers(
      KubernetesClient client,
      EtcdCluster cluster,
      MemberInventory inventory,
      EventRecorder events,
      String snapshot) {
    String ns = cluster.getMetadata().getNamespace();
    String message =
        "quorum lost for longer than disasterRecovery.afterSeconds: replacing every member with a"
            + " new cluster restored from "
            + snapshot
            + "; the old volumes are kept with label "
            + EtcdOperator.RETAINED_LABEL
            + "=true (writes after the snapshot are only there)";
    LOG.warn(message);
    events.warning(cluster, "DisasterRecovery", message);
    for (var volume : inventory.volumes().values()) {
      client
          .persistentVolumeClaims()
          .inNamespace(ns)
          .withName(volume.getMetadata().getName())
          .edit(
              v -> {
                v.getMetadata().getLabels().put(EtcdOperator.RETAINED_LABEL, "true");
                v.getMetadata().setOwnerReferences(List.of());
                return v;
              });
    }
    for (String pod : inventory.pods().keySet()) {
      client.pods().inNamespace(ns).withName(pod).delete();
    }
  }
}
