package dev.bosun.mysql.reconciler;

import dev.bosun.common.meta.RequestAnnotations;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.plan.Rebuilds;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A rebuild a person asks for with the cluster's annotation: read each round, and taken off once
 * the rebuild started (as Strimzi does with its manual rolling-update annotation), so it runs once.
 */
final class RebuildRequests {

  private RebuildRequests() {}

  /** The member a person asked to rebuild, or null. */
  static String of(MySQLCluster c) {
    var annotations = c.getMetadata().getAnnotations();
    String v = annotations == null ? null : annotations.get(Rebuilds.REQUEST_ANNOTATION);
    return v == null || v.isBlank() ? null : v.trim();
  }

  /** Takes the request off when this round started the rebuild it asks for. */
  static void clearStarted(KubernetesClient client, MySQLCluster c, TopologyController.Tick tick) {
    String requested = of(c);
    var rebuild = tick.record().rebuild();
    if (requested == null
        || rebuild == null
        || !requested.equals(rebuild.member())
        || !"Rebuilding".equals(tick.outcome().reason())) {
      return;
    }
    // Only while it still names this member: one changed meanwhile is a new request and stays.
    RequestAnnotations.removeIfStill(
        client
            .resources(MySQLCluster.class)
            .inNamespace(c.getMetadata().getNamespace())
            .withName(c.getMetadata().getName()),
        Rebuilds.REQUEST_ANNOTATION,
        requested);
  }
}
