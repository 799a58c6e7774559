package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.mysql.execute.Restorer;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;

/**
 * Gives the loader of a cluster's fromBackup for one reconcile, reading children from its cache.
 */
@FunctionalInterface
public interface Restorers {

  /** The loader of {@code cluster}'s fromBackup this round. */
  Restorer of(MySQLCluster cluster, ClusterModel model, ChildCache<MySQLCluster> cache);
}
