package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.Applier;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.meta.OwnerReferences;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.objects.MemberPods;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Common's {@link Applier} as an EtcdCluster's children are written with. A member volume is the
 * cluster's when it carries the cluster's member labels: under the Retain deletion policy it has no
 * owner reference (so that garbage collection leaves it), and a cluster made again under the same
 * name finds its volumes by name, as it always has.
 */
final class ChildApplier {

  private ChildApplier() {}

  /** The applier, reading live objects from {@code cache} (the server when they are not there). */
  static Applier<EtcdCluster> of(KubernetesClient client, ChildCache<EtcdCluster> cache) {
    return new Applier<>(
        client, cache, EtcdOperator.NAME, EtcdOperator.APPLIED_HASH, ChildApplier::owns);
  }

  /** Whether {@code live} is the cluster's to write over (or, for a volume, to use). */
  static boolean owns(EtcdCluster cluster, HasMetadata live) {
    if (OwnerReferences.isControlledBy(live, cluster)) {
      return true;
    }
    Map<String, String> labels = live.getMetadata().getLabels();
    return live instanceof PersistentVolumeClaim
        && labels != null
        && labels.entrySet().containsAll(MemberPods.selector(cluster).entrySet());
  }
}
