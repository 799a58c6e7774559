package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.SSABasedGenericKubernetesResourceMatcher;
import java.util.function.BooleanSupplier;

/**
 * JOSDK's server-side-apply matcher, asked again only when what it compares may have changed. A
 * child that matched, and whose generation (resourceVersion for kinds without one), labels,
 * annotations, owners and the operator's own field set are still the same, still matches the same
 * desired object. So a reconcile caused only by a child's status (each step of a Deployment's
 * rollout) does not turn both objects into maps to compare them again.
 */
public class RememberingMatcher<R extends HasMetadata>
    extends SSABasedGenericKubernetesResourceMatcher<R> {

  private final MatchMemory memory = new MatchMemory();

  @Override
  public boolean matches(R actual, R desired, Context<?> context) {
    return remembered(
        actual,
        desired,
        context.getControllerConfiguration().fieldManager(),
        context.getClient().getKubernetesSerialization(),
        () -> super.matches(actual, desired, context));
  }

  /** The remembered answer while nothing it depends on changed, else {@code compare}'s. */
  boolean remembered(
      R actual,
      R desired,
      String fieldManager,
      KubernetesSerialization serialization,
      BooleanSupplier compare) {
    return memory.remembered(
        actual.getMetadata(), serialization.asJson(desired), fieldManager, compare);
  }

  /** How many children are remembered as matching (for tests). */
  int remembered() {
    return memory.size();
  }
}
