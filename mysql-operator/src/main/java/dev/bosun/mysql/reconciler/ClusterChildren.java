package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.objects.ClusterObjects;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The cluster's Kubernetes objects (config, Services, StatefulSet, disruption budget), each applied
 * only when it differs from what was last applied.
 */
final class ClusterChildren {

  private ClusterChildren() {}

  /**
   * Applies them with the StatefulSet at {@code stsReplicas}.
   *
   * @throws Applier.ForeignObjectException when an object of the same name is someone else's
   */
  static void apply(
      KubernetesClient client,
      ChildCache<MySQLCluster> cache,
      MySQLCluster c,
      ClusterModel m,
      int stsReplicas)
      throws Applier.ForeignObjectException {
    Applier<MySQLCluster> applier =
        new Applier<>(client, cache, MySQLOperator.NAME, MySQLOperator.APPLIED_HASH);
    applier.apply(c, ClusterObjects.config(c, m));
    applier.apply(c, ClusterObjects.headless(c, m));
    applier.apply(c, ClusterObjects.roleService(c, m, MySQLOperator.PRIMARY));
    applier.apply(c, ClusterObjects.roleService(c, m, MySQLOperator.REPLICA));
    applier.apply(c, ClusterObjects.statefulSet(c, m, stsReplicas));
    DisruptionBudget budget = ClusterObjects.disruptionBudget(c);
    PodDisruptionBudgets.ensure(
        client,
        c,
        budget,
        MySQLOperator.NAME,
        cache.named(GenericKubernetesResource.class, budget.name()));
  }
}
