package dev.bosun.mysql.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.Conditions;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a person watching a cluster is told as Events (and the log): the step a round took, a new
 * block, a member that starts crash-looping, and the Ready transitions they care about.
 */
final class ClusterEvents {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterEvents.class);

  private final EventRecorder events;

  ClusterEvents(EventRecorder events) {
    this.events = events;
  }

  /** The round's error in the log and its step as an Event. */
  void round(MySQLCluster c, ClusterModel m, TopologyController.Tick tick) {
    if (tick.error() != null) {
      LOG.warn("{}/{}: {}", m.namespace(), m.name(), tick.error());
    }
    if (tick.outcome().hasEvent()) {
      LOG.info(
          "{}/{}: {}: {}",
          m.namespace(),
          m.name(),
          tick.outcome().reason(),
          tick.outcome().message());
      events.record(
          c,
          "Warning".equals(tick.outcome().eventType())
              ? EventRecorder.Type.Warning
              : EventRecorder.Type.Normal,
          tick.outcome().reason(),
          tick.outcome().message());
    }
  }

  /** One Warning per block the Ready condition does not already say. */
  void blockedOnce(MySQLCluster c, ClusterModel m, String reason, String message) {
    boolean changed =
        c.getStatus() == null
            || !Conditions.find(c.getStatus().getConditions(), ClusterStatusBuilder.READY)
                .map(r -> reason.equals(r.getReason()) && message.equals(r.getMessage()))
                .orElse(false);
    if (changed) {
      LOG.warn("{}/{}: {}: {}", m.namespace(), m.name(), reason, message);
      events.warning(c, reason, message);
    }
  }

  /** One Warning per member that starts crash-looping (the status before did not say so). */
  void crashes(MySQLCluster c, MySQLClusterStatus previous, Map<String, String> crashes) {
    Map<String, String> before = new HashMap<>();
    if (previous != null && previous.getInstances() != null) {
      previous.getInstances().forEach(i -> before.put(i.getName(), i.getMessage()));
    }
    crashes.forEach(
        (pod, why) -> {
          String earlier = before.get(pod);
          if (earlier == null || !earlier.contains("keeps exiting at start")) {
            events.warning(c, "MemberCrashLooping", pod + ": " + why);
          }
        });
  }

  /** Events for the Ready transitions a person watching the cluster cares about. */
  void readiness(MySQLCluster c, MySQLClusterStatus previous, MySQLClusterStatus now) {
    var before =
        previous == null
            ? null
            : Conditions.find(previous.getConditions(), ClusterStatusBuilder.READY).orElse(null);
    var after = Conditions.find(now.getConditions(), ClusterStatusBuilder.READY).orElseThrow();
    if (before != null
        && Objects.equals(before.getStatus(), after.getStatus())
        && Objects.equals(before.getReason(), after.getReason())) {
      return;
    }
    if ("True".equals(after.getStatus())) {
      events.normal(c, "Ready", after.getMessage());
    } else {
      var degraded =
          Conditions.find(now.getConditions(), ClusterStatusBuilder.DEGRADED).orElseThrow();
      // A new status's first Ready says nothing worth a Warning, unless the round is blocked on
      // what only a person can resolve (Ready then names the block Degraded names): a cluster
      // created over volumes it cannot start from is blocked from its first status on.
      boolean blocked = degraded.getReason().equals(after.getReason());
      if ("True".equals(degraded.getStatus()) && (before != null || blocked)) {
        events.warning(c, degraded.getReason(), degraded.getMessage());
      }
    }
  }
}
