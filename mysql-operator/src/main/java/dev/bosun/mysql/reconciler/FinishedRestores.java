package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.restore.LoadJobs;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A restore Job left behind by an operator that stopped between recording the finished load and
 * deleting the Job (the record names the dump, the Job is still there) goes, with its token Secret.
 * A failed Job stays (the record still says loading) for a person to read.
 */
final class FinishedRestores {

  private static final Logger LOG = LoggerFactory.getLogger(FinishedRestores.class);

  private FinishedRestores() {}

  static void forget(
      Restorers restorers,
      MySQLCluster c,
      ClusterModel m,
      ChildCache<MySQLCluster> cache,
      TopologyRecord record) {
    String from = record.restoredFrom();
    if (from == null
        || TopologyRecord.RESTORE_PENDING.equals(from)
        || TopologyRecord.RESTORE_LOADING.equals(from)
        || cache.named(Job.class, LoadJobs.name(c)).isEmpty()) {
      return;
    }
    try {
      restorers.of(c, m, cache).forget();
    } catch (KubernetesClientException e) {
      // Nothing waits on it: the next round tries again.
      LOG.warn(
          "{}/{}: the finished restore Job could not be deleted yet: {}",
          m.namespace(),
          m.name(),
          HumanMessages.describe(e));
    }
  }
}
