package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.TrimmedItemStore;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Forgets what the operator keeps per cluster (its etcd clients) once the cluster is deleted. The
 * cluster has no finalizer, so the reconciler never hears of the deletion: an informer of the
 * clusters themselves does, and wakes no reconcile.
 */
final class ClusterDeletions {

  private final List<Consumer<String>> forgetters;

  /** Each of {@code forgetters} is handed the UID of every deleted cluster. */
  ClusterDeletions(List<Consumer<String>> forgetters) {
    this.forgetters = List.copyOf(forgetters);
  }

  /** Forgets the cluster everywhere. */
  void deleted(EtcdCluster cluster) {
    String uid = cluster.getMetadata().getUid();
    forgetters.forEach(f -> f.accept(uid));
  }

  /** The informer that hears of deletions; it never triggers a reconcile. */
  InformerEventSource<EtcdCluster, EtcdCluster> eventSource(
      EventSourceContext<EtcdCluster> context) {
    var config =
        InformerEventSourceConfiguration.from(EtcdCluster.class, EtcdCluster.class)
            .withName("deleted-clusters")
            .withOnAddFilter(c -> false)
            .withOnUpdateFilter((c, old) -> false)
            .withOnDeleteFilter(
                (c, finalStateUnknown) -> {
                  deleted(c);
                  return false;
                })
            .withSecondaryToPrimaryMapper(c -> Set.of(ResourceID.fromResource(c)))
            .withItemStore(new TrimmedItemStore<>())
            .build();
    return new InformerEventSource<>(config, context);
  }
}
