package dev.bosun.e2e;

import dev.bosun.platform.RealNodePods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watches the member Pods of one workload (label {@code app.kubernetes.io/instance}) and keeps the
 * most members that were unavailable at once (missing, not ready, or being deleted) while it ran:
 * one at a time is a rolling restart, more is an outage of the set.
 */
final class UnavailableMembers implements AutoCloseable {

  private final SharedIndexInformer<Pod> informer;
  private final int replicas;
  private final AtomicInteger most = new AtomicInteger();

  UnavailableMembers(KubernetesClient admin, String namespace, String instance, int replicas) {
    this.replicas = replicas;
    this.informer =
        admin
            .pods()
            .inNamespace(namespace)
            .withLabel("app.kubernetes.io/instance", instance)
            .runnableInformer(0);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            look();
          }

          @Override
          public void onUpdate(Pod before, Pod after) {
            look();
          }

          @Override
          public void onDelete(Pod pod, boolean finalStateUnknown) {
            look();
          }
        });
    informer.run();
  }

  private void look() {
    most.accumulateAndGet(unavailable(informer.getStore().list(), replicas), Math::max);
  }

  /** How many of {@code replicas} members {@code pods} lack: missing, not ready or deleting. */
  static int unavailable(Collection<Pod> pods, int replicas) {
    long available =
        pods.stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .filter(RealNodePods::ready)
            .count();
    return (int) Math.max(0, replicas - available);
  }

  /** The most members unavailable at once so far. */
  int most() {
    return most.get();
  }

  @Override
  public void close() {
    informer.close();
  }
}
