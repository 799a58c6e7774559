package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A primary's child objects as the operator's informers hold them: reads that cost no API request,
 * so a converged resource is observed for free. What the operator writes is handed back to the
 * informer at once, so the next reconcile sees it even before the watch delivers it.
 */
public final class ChildCache<P extends HasMetadata> {

  private final Context<P> context;

  public ChildCache(Context<P> context) {
    this.context = context;
  }

  /** No cache: every lookup misses, for callers outside a reconcile of the owner. */
  public static <P extends HasMetadata> ChildCache<P> none() {
    return new ChildCache<>(null);
  }

  /** The child of this kind and name, if the informer holds it. */
  public <T extends HasMetadata> Optional<T> named(Class<T> kind, String name) {
    if (context == null) {
      return Optional.empty();
    }
    return context.getSecondaryResources(kind).stream()
        .filter(o -> name.equals(o.getMetadata().getName()))
        .findFirst();
  }

  /** Every child of this kind, by name. */
  public <T extends HasMetadata> List<T> all(Class<T> kind) {
    if (context == null) {
      return List.of();
    }
    return context.getSecondaryResources(kind).stream()
        .sorted(Comparator.comparing(o -> o.getMetadata().getName()))
        .toList();
  }

  /** The cached copy of the object {@code desired} names (same kind, same name). */
  @SuppressWarnings("unchecked")
  public <T extends HasMetadata> Optional<T> liveOf(T desired) {
    return named((Class<T>) desired.getClass(), desired.getMetadata().getName())
        .filter(o -> Objects.equals(o.getKind(), desired.getKind()));
  }

  /**
   * Tells the informer about an object the operator just wrote ({@code previous}: null if new); a
   * kind no informer of the owner follows (a Secret read only when written) needs no telling, and
   * nor does a generic object, whose informer (one kind of several served generically) the class
   * does not tell.
   */
  @SuppressWarnings("unchecked")
  public <T extends HasMetadata> void written(T written, T previous) {
    if (context == null || written instanceof GenericKubernetesResource) {
      return;
    }
    var sources = context.eventSourceRetriever().getEventSourcesFor((Class<T>) written.getClass());
    if (sources.size() != 1 || !(sources.get(0) instanceof InformerEventSource<T, P> source)) {
      return;
    }
    ResourceID id = ResourceID.fromResource(written);
    if (previous == null) {
      source.handleRecentResourceCreate(id, written);
    } else {
      source.handleRecentResourceUpdate(id, written, previous);
    }
  }
}
