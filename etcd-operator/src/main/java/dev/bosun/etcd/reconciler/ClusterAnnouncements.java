package dev.bosun.etcd.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.Conditions;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Events (and log lines) for the transitions of a cluster's conditions. */
final class ClusterAnnouncements {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterAnnouncements.class);

  /** Reasons of the DisasterRecovery condition that are no news. */
  private static final Set<String> QUIET_RECOVERY_REASONS =
      Set.of("NotConfigured", "Standby", "QuorumNotConfirmedLost", "DataIntact");

  private static final Set<String> WARNING_RECOVERY_REASONS =
      Set.of("NoUsableSnapshot", "SnapshotTooOld", "Recovering");

  private final EventRecorder events;

  ClusterAnnouncements(EventRecorder events) {
    this.events = events;
  }

  /** Events for the transitions of Ready, QuorumLost, DisasterRecovery and NoSpace. */
  void announce(EtcdCluster cluster, EtcdClusterStatus now) {
    EtcdClusterStatus previous = cluster.getStatus();
    announceQuorum(cluster, previous, now);
    announceRecovery(cluster, previous, now);
    Condition degraded =
        Conditions.find(now.getConditions(), EtcdClusterStatusBuilder.DEGRADED).orElseThrow();
    if (EtcdClusterStatusBuilder.NO_SPACE.equals(degraded.getReason())
        && !Conditions.sameStatusAndReason(
            previous == null ? null : previous.getConditions(),
            now.getConditions(),
            EtcdClusterStatusBuilder.DEGRADED)) {
      LOG.warn("NOSPACE: {}", degraded.getMessage());
      events.warning(cluster, EtcdClusterStatusBuilder.NO_SPACE, degraded.getMessage());
    }
    Condition ready =
        Conditions.find(now.getConditions(), EtcdClusterStatusBuilder.READY).orElseThrow();
    if (!sameReady(previous, now) && "True".equals(ready.getStatus())) {
      LOG.info("ready: {}", ready.getMessage());
      events.normal(cluster, "Ready", ready.getMessage());
    }
  }

  private void announceQuorum(
      EtcdCluster cluster, EtcdClusterStatus previous, EtcdClusterStatus now) {
    Condition quorum =
        Conditions.find(now.getConditions(), EtcdClusterStatusBuilder.QUORUM_LOST).orElseThrow();
    var before =
        previous == null
            ? null
            : Conditions.find(previous.getConditions(), EtcdClusterStatusBuilder.QUORUM_LOST)
                .orElse(null);
    if ("True".equals(quorum.getStatus())
        && (before == null
            || !"True".equals(before.getStatus())
            || !quorum.getReason().equals(before.getReason()))) {
      LOG.warn("no quorum ({}): {}", quorum.getReason(), quorum.getMessage());
      events.warning(cluster, quorum.getReason(), quorum.getMessage());
    }
    if ("Unknown".equals(quorum.getStatus())
        && (before == null || !quorum.getReason().equals(before.getReason()))) {
      LOG.warn("members unreachable: {}", quorum.getMessage());
      events.warning(cluster, quorum.getReason(), quorum.getMessage());
    }
  }

  /** Disaster recovery's steps as Events: one per change of its condition's reason. */
  private void announceRecovery(
      EtcdCluster cluster, EtcdClusterStatus previous, EtcdClusterStatus now) {
    Condition dr = Conditions.find(now.getConditions(), DisasterRecovery.CONDITION).orElse(null);
    if (dr == null
        || Conditions.sameStatusAndReason(
            previous == null ? null : previous.getConditions(),
            now.getConditions(),
            DisasterRecovery.CONDITION)
        || QUIET_RECOVERY_REASONS.contains(dr.getReason())) {
      return;
    }
    if (WARNING_RECOVERY_REASONS.contains(dr.getReason())) {
      LOG.warn("{}: {}", dr.getReason(), dr.getMessage());
      events.warning(cluster, dr.getReason(), dr.getMessage());
    } else {
      LOG.info("{}: {}", dr.getReason(), dr.getMessage());
      events.normal(cluster, dr.getReason(), dr.getMessage());
    }
  }

  /** Whether Ready keeps its status and reason from {@code previous} to {@code now}. */
  static boolean sameReady(EtcdClusterStatus previous, EtcdClusterStatus now) {
    return Conditions.sameStatusAndReason(
        previous == null ? null : previous.getConditions(),
        now.getConditions(),
        EtcdClusterStatusBuilder.READY);
  }
}
