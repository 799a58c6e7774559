package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.Applier;
import dev.bosun.etcd.objects.ClusterServices;
import dev.bosun.etcd.objects.Owners;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The cluster's headless peer Service and its client Service: applied when missing or changed, and
 * put back when someone changed their selector, ports or address publishing.
 */
final class ServiceRepair {

  private ServiceRepair() {}

  /**
   * Both Services of {@code cluster}.
   *
   * @throws Applier.ForeignObjectException when a Service of the same name is someone else's
   */
  static void ensure(Applier<EtcdCluster> applier, EtcdCluster cluster)
      throws Applier.ForeignObjectException {
    ensure(applier, ClusterServices.peer(cluster), cluster);
    ensure(applier, ClusterServices.client(cluster), cluster);
  }

  private static void ensure(Applier<EtcdCluster> applier, Service desired, EtcdCluster owner)
      throws Applier.ForeignObjectException {
    desired.getMetadata().setOwnerReferences(Owners.of(owner));
    applier.apply(owner, desired, ServiceRepair::holds);
  }

  /**
   * Whether the live Service still has the selector, ports and address publishing asked for. What
   * another writer added beside them is not counted: an apply cannot take it away, and counting it
   * would apply again on every round.
   */
  static boolean holds(Service live, Service desired) {
    Map<String, String> selector = live.getSpec().getSelector();
    return selector != null
        && selector.entrySet().containsAll(desired.getSpec().getSelector().entrySet())
        && ports(live).containsAll(ports(desired))
        && Objects.equals(
            live.getSpec().getPublishNotReadyAddresses(),
            desired.getSpec().getPublishNotReadyAddresses());
  }

  private static List<String> ports(Service service) {
    return service.getSpec().getPorts().stream().map(p -> p.getName() + p.getPort()).toList();
  }
}
