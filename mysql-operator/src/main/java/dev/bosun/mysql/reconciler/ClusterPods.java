package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.mysql.objects.ClusterObjects;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;

/**
 * The database Pods of a cluster, as the Pod informer holds them (never a restore or copy Job's).
 */
final class ClusterPods {

  private ClusterPods() {}

  static List<Pod> of(ChildCache<MySQLCluster> cache, MySQLCluster c) {
    Map<String, String> selector = ClusterObjects.selector(c);
    return cache.all(Pod.class).stream()
        .filter(
            p ->
                p.getMetadata().getLabels() != null
                    && p.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
        .toList();
  }
}
