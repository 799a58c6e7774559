package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.SSABasedGenericKubernetesResourceMatcher;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
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

  /** Past this, the memory starts over (a match is only recomputed, never wrong). */
  private static final int MAX_REMEMBERED = 100_000;

  private final Map<String, Fingerprint> matched = new ConcurrentHashMap<>();

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
    String uid = actual.getMetadata().getUid();
    if (uid == null) {
      return compare.getAsBoolean();
    }
    Fingerprint now =
        Fingerprint.of(actual.getMetadata(), fieldManager, digest(serialization.asJson(desired)));
    if (now.equals(matched.get(uid))) {
      return true;
    }
    boolean matches = compare.getAsBoolean();
    if (matches) {
      if (matched.size() >= MAX_REMEMBERED) {
        matched.clear();
      }
      matched.put(uid, now);
    } else {
      matched.remove(uid);
    }
    return matches;
  }

  /** How many children are remembered as matching (for tests). */
  int remembered() {
    return matched.size();
  }

  private static byte[] digest(String json) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(json.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /**
   * What the matcher's answer depends on. A spec change moves the generation (for kinds that keep
   * one; otherwise any write moves the resourceVersion); labels, annotations and owners do not, so
   * they are compared themselves; the own field set changes when another manager takes a field.
   */
  private record Fingerprint(
      String version,
      Map<String, String> labels,
      Map<String, String> annotations,
      List<OwnerReference> owners,
      Object ownFields,
      byte[] desired) {

    static Fingerprint of(ObjectMeta meta, String fieldManager, byte[] desired) {
      Long generation = meta.getGeneration();
      String version =
          generation != null && generation > 0
              ? "generation " + generation
              : "resourceVersion " + meta.getResourceVersion();
      Object ownFields =
          meta.getManagedFields() == null
              ? null
              : meta.getManagedFields().stream()
                  .filter(m -> fieldManager.equals(m.getManager()))
                  .filter(m -> APPLY_OPERATION.equals(m.getOperation()))
                  .map(ManagedFieldsEntry::getFieldsV1)
                  .toList();
      return new Fingerprint(
          version,
          meta.getLabels(),
          meta.getAnnotations(),
          meta.getOwnerReferences(),
          ownFields,
          desired);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Fingerprint f
          && version.equals(f.version)
          && Objects.equals(labels, f.labels)
          && Objects.equals(annotations, f.annotations)
          && Objects.equals(owners, f.owners)
          && Objects.equals(ownFields, f.ownFields)
          && Arrays.equals(desired, f.desired);
    }

    @Override
    public int hashCode() {
      return Objects.hash(
          version, labels, annotations, owners, ownFields, Arrays.hashCode(desired));
    }
  }
}
