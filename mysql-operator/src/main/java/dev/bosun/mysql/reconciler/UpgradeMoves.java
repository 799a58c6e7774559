package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes one move of a rolling upgrade ({@link RollingUpgrade}) when the cluster is steady and
 * healthy: replicas first, the primary last after a switchover, which it remembers per cluster
 * until the new primary is recorded (spec.switchover.target, when set, wins).
 */
final class UpgradeMoves {

  private static final Logger LOG = LoggerFactory.getLogger(UpgradeMoves.class);

  private final EventRecorder events;
  private final Map<String, String> switchovers = new ConcurrentHashMap<>();

  UpgradeMoves(EventRecorder events) {
    this.events = events;
  }

  /** The member an upgrade wants to switch over to in this cluster, or null. */
  String switchoverTarget(String uid) {
    return switchovers.get(uid);
  }

  /** Forgets a deleted cluster's pending switchover. */
  void forget(String uid) {
    switchovers.remove(uid);
  }

  void next(
      KubernetesClient client,
      ChildCache<MySQLCluster> cache,
      MySQLCluster c,
      ClusterModel m,
      TopologyController.Tick tick,
      Map<String, Address> addresses) {
    String uid = c.getMetadata().getUid();
    String primary = tick.record().primary();
    if (switchovers.containsKey(uid) && switchovers.get(uid).equals(primary)) {
      switchovers.remove(uid);
    }
    if (!tick.steady()) {
      return;
    }
    StatefulSet sts = cache.named(StatefulSet.class, m.name()).orElse(null);
    List<Pod> pods = ClusterPods.of(cache, c);
    Address primaryAddress = primary == null ? null : addresses.get(primary);
    List<String> healthyReplicas =
        tick.observed().stream()
            .filter(i -> !i.name().equals(primary))
            .filter(i -> primaryAddress != null && i.replicatesFrom(primaryAddress))
            .filter(i -> !tick.plan().errant().contains(i.name()))
            .map(InstanceState::name)
            .toList();
    boolean allHealthy =
        pods.size() >= m.replicas() && healthyReplicas.size() == Math.max(0, m.replicas() - 1);
    RollingUpgrade.Move move = RollingUpgrade.next(sts, pods, primary, allHealthy, healthyReplicas);
    if (move.switchoverTo() != null && m.switchoverTarget() == null) {
      switchovers.put(uid, move.switchoverTo());
      events.normal(c, "UpgradeSwitchover", move.message());
    } else if (move.deletePod() != null) {
      LOG.info("{}/{}: {}", m.namespace(), m.name(), move.message());
      events.normal(c, "UpgradingInstance", move.message());
      client.pods().inNamespace(m.namespace()).withName(move.deletePod()).delete();
    }
  }
}
