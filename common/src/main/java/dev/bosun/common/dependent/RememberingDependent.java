package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher.Result;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A managed dependent that builds its desired object only when what it is built from may have
 * changed. Most reconciles of a converged or rolling-out primary are caused by a child's status
 * (each step of a Deployment's rollout): the child is as it last matched and the primary as it was
 * stored then, so it matches again without building the desired object (a Deployment's whole
 * template and revision digest) and without asking the matcher, which would serialize it.
 */
public abstract class RememberingDependent<R extends HasMetadata, P extends HasMetadata>
    extends CRUDKubernetesDependentResource<R, P> {

  private final MatchMemory memory = new MatchMemory();

  protected RememberingDependent(Class<R> resourceType) {
    super(resourceType);
  }

  @Override
  public Result<R> match(R actual, P primary, Context<P> context) {
    return match(
        actual,
        desiredInputs(primary, context),
        fieldManager(context),
        () -> super.match(actual, primary, context));
  }

  @Override
  public R create(R desired, P primary, Context<P> context) {
    R created = super.create(desired, primary, context);
    written(created, desiredInputs(primary, context), fieldManager(context));
    return created;
  }

  @Override
  public R update(R actual, R desired, P primary, Context<P> context) {
    R updated = super.update(actual, desired, primary, context);
    written(updated, desiredInputs(primary, context), fieldManager(context));
    return updated;
  }

  /** Remembers a child as written from {@code inputs} (nothing without them). */
  void written(R child, String inputs, String fieldManager) {
    if (child != null && inputs != null) {
      memory.written(child.getMetadata(), inputs, fieldManager);
    }
  }

  private static String fieldManager(Context<?> context) {
    return context.getControllerConfiguration().fieldManager();
  }

  /** The remembered match while nothing it depends on changed, else {@code compute}'s result. */
  Result<R> match(R actual, String inputs, String fieldManager, Supplier<Result<R>> compute) {
    if (inputs == null) {
      return compute.get();
    }
    List<Result<R>> computed = new ArrayList<>(1);
    boolean matched =
        memory.remembered(
            actual.getMetadata(),
            inputs,
            fieldManager,
            () -> {
              computed.add(compute.get());
              return computed.get(0).matched();
            });
    return computed.isEmpty() ? Result.nonComputed(matched) : computed.get(0);
  }

  /**
   * Everything the desired object is built from, as text, or null when that cannot be told (the
   * desired object is then built and compared every time). By default the primary as stored: its
   * uid and resourceVersion, which every change of it moves. A dependent whose desired object also
   * depends on something else (a rollout step, another cached object) adds it.
   */
  protected String desiredInputs(P primary, Context<P> context) {
    var meta = primary.getMetadata();
    if (meta.getUid() == null || meta.getResourceVersion() == null) {
      return null;
    }
    return meta.getUid() + "@" + meta.getResourceVersion();
  }

  /** How many children are remembered as matching (for tests). */
  int remembered() {
    return memory.size();
  }
}
