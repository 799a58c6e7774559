package dev.bosun.common.dependent;

import dev.bosun.common.meta.Labels;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Locale;

/**
 * Informers on an operator's own children (label-scoped to its managed-by selector, mapped to their
 * owner by the instance label, managedFields dropped). They serve reads from the cache; they wake
 * the owner only when a child goes away, because the operator's own writes and a child's routine
 * status changes need no reconcile of their own.
 */
public final class ChildInformers {

  private ChildInformers() {}

  /** An informer on the children of {@code kind} that wakes the owner when one is deleted. */
  public static <T extends HasMetadata, P extends HasMetadata> InformerEventSource<T, P> of(
      Class<T> kind, Class<P> owner, String managedSelector, EventSourceContext<P> context) {
    return new InformerEventSource<>(
        deletionsOnly(
                InformerEventSourceConfiguration.from(kind, owner)
                    .withName(kind.getSimpleName().toLowerCase(Locale.ROOT)))
            .withLabelSelector(managedSelector)
            .build(),
        context);
  }

  /**
   * An informer on children that change on their own and whose owner waits for it (Jobs run to
   * their end): every change after the operator made one wakes the owner, so it never polls.
   */
  public static <T extends HasMetadata, P extends HasMetadata> InformerEventSource<T, P> following(
      Class<T> kind, Class<P> owner, String managedSelector, EventSourceContext<P> context) {
    return new InformerEventSource<>(
        InformerEventSourceConfiguration.from(kind, owner)
            .withName(kind.getSimpleName().toLowerCase(Locale.ROOT))
            .withItemStore(new TrimmedItemStore<>())
            .withOnAddFilter(child -> false)
            .withSecondaryToPrimaryMapper(Labels.toInstanceOwner())
            .withLabelSelector(managedSelector)
            .build(),
        context);
  }

  /** The same for a kind served in a version known only at run time (a generic resource). */
  public static <P extends HasMetadata> InformerEventSource<GenericKubernetesResource, P> of(
      GroupVersionKind kind,
      Class<P> owner,
      String managedSelector,
      EventSourceContext<P> context) {
    return new InformerEventSource<>(
        deletionsOnly(
                InformerEventSourceConfiguration.from(kind, owner)
                    .withName(kind.getKind().toLowerCase(Locale.ROOT)))
            .withLabelSelector(managedSelector)
            .build(),
        context);
  }

  private static <T extends HasMetadata> InformerEventSourceConfiguration.Builder<T> deletionsOnly(
      InformerEventSourceConfiguration.Builder<T> builder) {
    return builder
        .withItemStore(new TrimmedItemStore<>())
        .withOnAddFilter(child -> false)
        .withOnUpdateFilter(
            (child, old) ->
                child.getMetadata().getDeletionTimestamp() != null
                    && old.getMetadata().getDeletionTimestamp() == null)
        .withSecondaryToPrimaryMapper(Labels.toInstanceOwner());
  }
}
