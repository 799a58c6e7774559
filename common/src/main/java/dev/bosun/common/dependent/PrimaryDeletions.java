package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;
import java.util.Set;
import java.util.function.Consumer;

/**
 * An event source that wakes no reconcile and tells {@code onDeleted} of every primary resource
 * deleted, so that state a reconciler keeps in memory per resource (samplers, remembered verdicts)
 * goes with the resource, without a finalizer. JOSDK hands every primary event to each event source
 * that is {@link ResourceEventAware}, before its filters.
 */
public final class PrimaryDeletions<P extends HasMetadata> extends AbstractEventSource<Void, P>
    implements ResourceEventAware<P> {

  private final Consumer<P> onDeleted;

  /** An event source named {@code name} that calls {@code onDeleted} with each deleted primary. */
  public PrimaryDeletions(String name, Consumer<P> onDeleted) {
    super(Void.class, name);
    this.onDeleted = onDeleted;
  }

  @Override
  public void onResourceDeleted(P resource) {
    onDeleted.accept(resource);
  }

  @Override
  public Set<Void> getSecondaryResources(P primary) {
    return Set.of();
  }
}
