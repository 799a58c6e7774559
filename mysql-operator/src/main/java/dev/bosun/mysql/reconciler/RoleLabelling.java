package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the role label of the cluster's Pods ({@link RoleLabels}) so the primary and replicas
 * Services follow the topology a round observed: one merge patch per changed Pod, no read first.
 */
final class RoleLabelling {

  private static final Logger LOG = LoggerFactory.getLogger(RoleLabelling.class);

  private RoleLabelling() {}

  static void apply(
      KubernetesClient client,
      ChildCache<MySQLCluster> cache,
      MySQLCluster c,
      TopologyController.Tick tick,
      Map<String, Address> addresses) {
    Map<String, Pod> byName = new HashMap<>();
    Map<String, String> current = new HashMap<>();
    for (Pod pod : ClusterPods.of(cache, c)) {
      byName.put(pod.getMetadata().getName(), pod);
      current.put(
          pod.getMetadata().getName(),
          pod.getMetadata().getLabels() == null
              ? null
              : pod.getMetadata().getLabels().get(MySQLOperator.ROLE));
    }
    Map<String, String> wanted = RoleLabels.wanted(tick, addresses, current);
    for (RoleLabels.Change change : RoleLabels.changes(wanted, current)) {
      Pod patched;
      try {
        patched =
            client
                .pods()
                .inNamespace(c.getMetadata().getNamespace())
                .withName(change.pod())
                .patch(StatusRecords.MERGE, RoleLabels.patch(change.role()));
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        // The Pod went since the informer saw it (force-deleted, evicted): its successor starts
        // without the label, and failing the round here would hold back the failover by the
        // error retries' back-off.
        LOG.info(
            "{}/{}: pod {} is gone; not labelled",
            c.getMetadata().getNamespace(),
            c.getMetadata().getName(),
            change.pod());
        continue;
      }
      cache.written(patched, byName.get(change.pod()));
    }
  }
}
