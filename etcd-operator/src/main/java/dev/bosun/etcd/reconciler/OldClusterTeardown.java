package dev.bosun.etcd.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A recorded disaster recovery whose old cluster is not yet forgotten: its next step, chosen by the
 * {@link RecoveryPlanner} on the API server's list of Pods and volumes, one safe step a round.
 */
final class OldClusterTeardown {

  /** Ready's reason while a disaster recovery waits for the old member Pods to be gone. */
  static final String RECOVERY_WAITING = "RecoveryWaitingForOldMembers";

  private static final String REASON = "DisasterRecovery";

  private static final Logger LOG = LoggerFactory.getLogger(OldClusterTeardown.class);

  private final EtcdClusterStatusBuilder statuses;
  private final EventRecorder events;

  OldClusterTeardown(EtcdClusterStatusBuilder statuses, EventRecorder events) {
    this.statuses = statuses;
    this.events = events;
  }

  /** The next step of taking the old cluster apart, carried out and recorded. */
  UpdateControl<EtcdCluster> next(EtcdCluster cluster, Context<EtcdCluster> context) {
    KubernetesClient client = context.getClient();
    MemberInventory inventory = MemberInventory.read(client, cluster);
    String from = cluster.getStatus().getRecoveringFrom();
    RecoveryPlanner.RecoveryStep step = RecoveryPlanner.plan(input(inventory));
    if (step instanceof RecoveryPlanner.RetainVolumes v) {
      DisasterRecovery.retainVolumes(client, cluster, inventory, v.members(), events);
    } else if (step instanceof RecoveryPlanner.StopPods p) {
      DisasterRecovery.stopPods(client, cluster, p.members(), events);
    } else if (step instanceof RecoveryPlanner.WaitForPods) {
      return waitToRecover(
          context,
          cluster,
          RECOVERY_WAITING,
          waitingForOldMembers(from, inventory.pods().values()),
          Duration.ofSeconds(1));
    } else if (step instanceof RecoveryPlanner.ForgetOldCluster forget) {
      return forget(context, cluster, from, forget);
    }
    return waitToRecover(
        context,
        cluster,
        REASON,
        "disaster recovery from " + from + ": " + step.message(),
        Duration.ofMillis(500));
  }

  /** The planner's view of the old members: volumes, and Pods running or terminating. */
  private static RecoveryPlanner.Input input(MemberInventory inventory) {
    Set<String> live = new HashSet<>();
    Set<String> terminating = new HashSet<>();
    inventory
        .pods()
        .forEach(
            (name, pod) ->
                (pod.getMetadata().getDeletionTimestamp() == null ? live : terminating).add(name));
    return new RecoveryPlanner.Input(false, inventory.volumes().keySet(), live, terminating);
  }

  /** The old cluster forgotten: no ID, members, leader or loss recorded any more. */
  private UpdateControl<EtcdCluster> forget(
      Context<EtcdCluster> context,
      EtcdCluster cluster,
      String from,
      RecoveryPlanner.ForgetOldCluster forget) {
    EtcdClusterStatus status =
        statuses.blocked(
            cluster, REASON, "disaster recovery from " + from + ": " + forget.message());
    status.setClusterId(null);
    status.setMembers(null);
    status.setLeader(null);
    status.setHealthyMembers(0);
    status.setQuorumLostSince(null);
    LOG.info("disaster recovery from {}: {}", from, forget.message());
    CachedStatusWrites.applyIfChanged(cluster, status, context);
    return UpdateControl.<EtcdCluster>noUpdate().rescheduleAfter(Duration.ofMillis(500));
  }

  /**
   * A disaster recovery that cannot take its next step yet: says what it waits for (logged once per
   * change, and as the Ready condition's message), keeps recoveringFrom, and looks again.
   */
  private UpdateControl<EtcdCluster> waitToRecover(
      Context<EtcdCluster> context,
      EtcdCluster cluster,
      String reason,
      String message,
      Duration again) {
    EtcdClusterStatus status = statuses.blocked(cluster, reason, message);
    Condition before =
        Conditions.find(cluster.getStatus().getConditions(), EtcdClusterStatusBuilder.READY)
            .orElse(null);
    if (before == null
        || !reason.equals(before.getReason())
        || !message.equals(before.getMessage())) {
      LOG.info("{}: {}", reason, message);
    }
    CachedStatusWrites.applyIfChanged(cluster, status, context);
    return UpdateControl.<EtcdCluster>noUpdate().rescheduleAfter(again);
  }

  /** What a disaster recovery waits for while old member Pods are still there. */
  static String waitingForOldMembers(String from, Collection<Pod> pods) {
    List<String> left =
        pods.stream()
            .map(
                p ->
                    p.getMetadata().getName()
                        + (p.getMetadata().getDeletionTimestamp() == null
                            ? " (not deleted)"
                            : " (terminating since "
                                + p.getMetadata().getDeletionTimestamp()
                                + ")"))
            .toList();
    return "disaster recovery from "
        + from
        + ": waiting for the old member Pods to be gone before the first new member starts: "
        + String.join(", ", left);
  }
}
