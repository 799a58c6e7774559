package dev.bosun.mysql.reconciler;

import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.execute.ContentRecord;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.RebuildRecord;
import dev.bosun.mysql.execute.RecordSink;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.PromotionIntent;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.ContentCheck;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Rebuild;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The topology history a MySQLCluster's status holds, read as the replication loop's record, and
 * the sink that stores a record in the status before the loop acts on it.
 */
final class StatusRecords {

  /** A merge patch as the operator's field manager: no read of the cluster before it. */
  static final PatchContext MERGE =
      new PatchContext.Builder()
          .withPatchType(PatchType.JSON_MERGE)
          .withFieldManager(MySQLOperator.NAME)
          .build();

  private StatusRecords() {}

  /** The topology history the status holds. */
  static TopologyRecord record(MySQLClusterStatus s, ClusterModel m) {
    if (s == null) {
      return new TopologyRecord(
          null,
          null,
          null,
          null,
          m.fromBackup() != null ? TopologyRecord.RESTORE_PENDING : null,
          null);
    }
    var intent = s.getPromotionIntent();
    return new TopologyRecord(
        s.getPrimary(),
        s.getPreviousPrimary(),
        s.getPromotionGtid(),
        s.getLastFailoverTime() == null ? null : s.getLastFailoverTime().toInstant(),
        s.getRestoredFrom() == null && s.getPrimary() == null && m.fromBackup() != null
            ? TopologyRecord.RESTORE_PENDING
            : s.getRestoredFrom(),
        intent == null || intent.getCandidate() == null
            ? null
            : new PromotionIntent(
                intent.getCandidate(),
                intent.getFrom(),
                intent.getPoint() == null ? "" : intent.getPoint()),
        rebuildRecord(s.getRebuild()),
        contentRecord(s.getContentCheck()));
  }

  private static ContentRecord contentRecord(ContentCheck c) {
    if (c == null) {
      return ContentRecord.empty();
    }
    return new ContentRecord(
        c.getVerifiedStarts() == null ? Map.of() : c.getVerifiedStarts(),
        c.getDiffering() == null ? Map.of() : c.getDiffering(),
        c.getLast(),
        c.getLastTime() == null ? null : c.getLastTime().toInstant());
  }

  private static RebuildRecord rebuildRecord(Rebuild r) {
    if (r == null || r.getMember() == null || r.getPhase() == null) {
      return null;
    }
    return new RebuildRecord(
        r.getMember(),
        r.getSource(),
        r.getReason(),
        r.getPhase(),
        r.getStartedAt() == null ? null : r.getStartedAt().toInstant(),
        r.getFinishedAt() == null ? null : r.getFinishedAt().toInstant(),
        r.getErrantTransactions(),
        r.getMessage());
  }

  /**
   * Stores a record in the cluster's status at once, before the executor acts on it (a promotion
   * intent, a started restore). Failing to store it stops the action.
   */
  static RecordSink sink(Context<MySQLCluster> context, MySQLCluster c) {
    return rec -> {
      // The whole status as the cache holds it (every status write of this operator goes through
      // the cache) with the record's fields replaced, and no read first: this write sits between
      // a candidate catching up and its promotion. It lands only on this very cluster: a round
      // still running for a cluster deleted and created again over its volumes must not store
      // its record there, nor act on the new cluster's servers.
      MySQLClusterStatus next =
          c.getStatus() == null
              ? new MySQLClusterStatus()
              : Serialization.jsonMapper().convertValue(c.getStatus(), MySQLClusterStatus.class);
      ClusterStatusBuilder.writeRecord(next, rec);
      try {
        CachedStatusWrites.write(c, next, context);
      } catch (KubernetesClientException e) {
        throw new InstanceException(
            "could not record the next topology step in status (HTTP " + e.getCode() + ")", e);
      }
    };
  }

  /** The members the status last called errant. */
  static Set<String> knownErrant(MySQLClusterStatus s) {
    Set<String> errant = new TreeSet<>();
    if (s != null && s.getInstances() != null) {
      for (Instances i : s.getInstances()) {
        if (Boolean.TRUE.equals(i.getErrant())) {
          errant.add(i.getName());
        }
      }
    }
    return errant;
  }

  /** The ordinal of a member's Pod name. */
  static int ordinal(String pod) {
    return Integer.parseInt(pod.substring(pod.lastIndexOf('-') + 1));
  }
}
