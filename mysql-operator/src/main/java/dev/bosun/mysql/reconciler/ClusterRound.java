package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Map;

/**
 * The cluster one reconcile of {@link MySQLClusterReconciler} works on, and where it reads and
 * writes; nothing in it changes. What each step decides is one of the records inside, handed to the
 * steps after it.
 */
record ClusterRound(
    MySQLCluster c, ClusterModel m, Context<MySQLCluster> context, ChildCache<MySQLCluster> cache) {

  ClusterRound(MySQLCluster c, Context<MySQLCluster> context) {
    this(c, ClusterModel.of(c), context, new ChildCache<>(context));
  }

  MySQLClusterStatus previous() {
    return c.getStatus();
  }

  KubernetesClient client() {
    return context.getClient();
  }

  /**
   * Why the changes the spec asks for wait this round (an invalid spec, a Secret problem or a
   * foreign object), or {@link #NONE}: the running instances' health round goes on either way.
   */
  record Hold(String reason, String message) {
    static final Hold NONE = new Hold(null, null);

    boolean holds() {
      return reason != null;
    }
  }

  /** What the admission step found: the Secrets, the live StatefulSet, what holds the spec. */
  record Admission(ClusterSecrets.Found secrets, StatefulSet liveSts, Hold hold) {

    /** No credentials, or an invalid spec with nothing running yet: no health round either. */
    boolean nothingRuns() {
      return secrets.credentials() == null
          || (MySQLClusterReconciler.INVALID_SPEC.equals(hold.reason()) && liveSts == null);
    }

    int liveReplicas() {
      return liveSts == null || liveSts.getSpec().getReplicas() == null
          ? 0
          : liveSts.getSpec().getReplicas();
    }
  }

  /** What the health round saw and did: each instance's address, the controller, its tick. */
  record Health(
      Map<String, Address> addresses,
      TopologyController controller,
      TopologyController.Tick tick) {}
}
