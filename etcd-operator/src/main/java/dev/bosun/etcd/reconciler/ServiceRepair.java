package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.etcd.objects.ClusterServices;
import dev.bosun.etcd.objects.Owners;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;

/**
 * The cluster's headless peer Service and its client Service: created, or put back when changed.
 */
final class ServiceRepair {

  private ServiceRepair() {}

  /** Both Services of {@code cluster}. */
  static void ensure(KubernetesClient client, ChildCache<EtcdCluster> cache, EtcdCluster cluster) {
    ensure(client, cache, ClusterServices.peer(cluster), cluster);
    ensure(client, cache, ClusterServices.client(cluster), cluster);
  }

  /** Creates the Service, or puts back its selector and ports when someone changed them. */
  private static void ensure(
      KubernetesClient client, ChildCache<EtcdCluster> cache, Service desired, EtcdCluster owner) {
    desired.getMetadata().setOwnerReferences(Owners.of(owner));
    var resource =
        client
            .services()
            .inNamespace(desired.getMetadata().getNamespace())
            .withName(desired.getMetadata().getName());
    // Missing from the label-scoped cache: it may exist without the labels, so ask the server.
    Service live = cache.liveOf(desired).orElseGet(resource::get);
    if (live == null) {
      cache.written(resource.create(desired), null);
      return;
    }
    if (!same(live, desired)) {
      resource.edit(
          s -> {
            s.getSpec().setSelector(desired.getSpec().getSelector());
            s.getSpec().setPorts(desired.getSpec().getPorts());
            s.getSpec()
                .setPublishNotReadyAddresses(desired.getSpec().getPublishNotReadyAddresses());
            return s;
          });
    }
  }

  /** Whether the live Service has the selector, ports and address publishing asked for. */
  static boolean same(Service live, Service desired) {
    return Objects.equals(live.getSpec().getSelector(), desired.getSpec().getSelector())
        && Objects.equals(
            live.getSpec().getPorts().stream().map(p -> p.getName() + p.getPort()).toList(),
            desired.getSpec().getPorts().stream().map(p -> p.getName() + p.getPort()).toList())
        && Objects.equals(
            live.getSpec().getPublishNotReadyAddresses(),
            desired.getSpec().getPublishNotReadyAddresses());
  }
}
