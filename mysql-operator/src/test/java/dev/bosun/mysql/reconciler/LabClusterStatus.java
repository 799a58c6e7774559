package dev.bosun.mysql.reconciler;

import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import java.util.Map;

/**
 * The MySQLCluster a lab round stands for: the spec's instance count and the status the reconciler
 * would write after that round, so a lab asks the reconciler's own questions of it.
 */
public final class LabClusterStatus {

  private static final ClusterStatusBuilder BUILDER = new ClusterStatusBuilder(Clock.systemUTC());

  private LabClusterStatus() {}

  /** A MariaDB cluster of {@code instances} with the status written after {@code tick}. */
  public static MySQLCluster after(
      TopologyController.Tick tick, Map<String, Address> addresses, int instances) {
    MySQLCluster c = new MySQLCluster();
    c.setMetadata(
        new ObjectMetaBuilder().withName("db").withNamespace("lab").withGeneration(1L).build());
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setReplicas(instances);
    spec.setFlavour(MySQLClusterSpec.Flavour.MARIADB);
    spec.setVersion("10.11");
    c.setSpec(spec);
    c.setStatus(BUILDER.build(c, ClusterModel.of(c), tick, addresses, null));
    return c;
  }
}
