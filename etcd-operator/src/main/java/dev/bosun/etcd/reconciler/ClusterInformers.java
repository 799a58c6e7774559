package dev.bosun.etcd.reconciler;

import dev.bosun.common.dependent.ChildInformers;
import dev.bosun.common.dependent.PodDisruptionBudgets;
import dev.bosun.common.dependent.TrimmedItemStore;
import dev.bosun.common.meta.Labels;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;

/** The informers of a cluster's children: its member Pods, volumes, Services and budget. */
final class ClusterInformers {

  private ClusterInformers() {}

  static List<EventSource<?, EtcdCluster>> of(EventSourceContext<EtcdCluster> context) {
    // A member Pod that disappears (or is being deleted) is worth an immediate look; its other
    // updates are not (health comes from etcd, not from Pod readiness).
    var pods =
        InformerEventSourceConfiguration.from(Pod.class, EtcdCluster.class)
            .withName("member-pods")
            .withLabelSelector(EtcdOperator.MANAGED_SELECTOR)
            .withOnAddFilter(pod -> false)
            .withOnUpdateFilter(
                (pod, old) ->
                    pod.getMetadata().getDeletionTimestamp() != null
                        && old.getMetadata().getDeletionTimestamp() == null)
            .withSecondaryToPrimaryMapper(Labels.toInstanceOwner())
            .withItemStore(new TrimmedItemStore<>())
            .build();
    // Volumes, Services and the budget only serve reads from the cache (a converged cluster costs
    // no API request); one that disappears wakes the cluster too.
    String managed = EtcdOperator.MANAGED_SELECTOR;
    return List.of(
        new InformerEventSource<>(pods, context),
        ChildInformers.of(PersistentVolumeClaim.class, EtcdCluster.class, managed, context),
        ChildInformers.of(Service.class, EtcdCluster.class, managed, context),
        ChildInformers.of(
            PodDisruptionBudgets.groupVersionKind(context.getClient()),
            EtcdCluster.class,
            managed,
            context));
  }
}
