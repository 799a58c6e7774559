package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.FieldsV1;
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
import java.util.TreeMap;
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
        Fingerprint.of(
            actual.getMetadata(), fieldManager, serialization, serialization.asJson(desired));
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

  /**
   * What the matcher's answer depends on, held as a digest: a record of the maps themselves would
   * keep each child's labels, annotations and owners alive twice (the informer replaces its copy on
   * every status update). A spec change moves the generation (for kinds that keep one; otherwise
   * any write moves the resourceVersion); labels, annotations and owners do not, so they are in the
   * digest; the own field set changes when another manager takes a field.
   */
  private record Fingerprint(String version, byte[] digest) {

    static Fingerprint of(
        ObjectMeta meta,
        String fieldManager,
        KubernetesSerialization serialization,
        String desiredJson) {
      Long generation = meta.getGeneration();
      String version =
          generation != null && generation > 0
              ? "generation " + generation
              : "resourceVersion " + meta.getResourceVersion();
      Canonical text = new Canonical();
      text.map(meta.getLabels()).map(meta.getAnnotations());
      List<OwnerReference> owners =
          meta.getOwnerReferences() == null ? List.of() : meta.getOwnerReferences();
      text.token(String.valueOf(owners.size()));
      for (OwnerReference o : owners) {
        text.token(o.getApiVersion())
            .token(o.getKind())
            .token(o.getName())
            .token(o.getUid())
            .token(String.valueOf(o.getController()))
            .token(String.valueOf(o.getBlockOwnerDeletion()));
      }
      List<ManagedFieldsEntry> managed =
          meta.getManagedFields() == null ? List.of() : meta.getManagedFields();
      for (ManagedFieldsEntry m : managed) {
        if (fieldManager.equals(m.getManager()) && APPLY_OPERATION.equals(m.getOperation())) {
          FieldsV1 fields = m.getFieldsV1();
          text.token(
              fields instanceof CompactFieldsV1 compact
                  ? compact.json()
                  : serialization.asJson(fields));
        }
      }
      text.token(desiredJson);
      return new Fingerprint(version, text.digest());
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Fingerprint f
          && version.equals(f.version)
          && Arrays.equals(digest, f.digest);
    }

    @Override
    public int hashCode() {
      return 31 * version.hashCode() + Arrays.hashCode(digest);
    }
  }

  /** Length-prefixed tokens, so that no two different inputs read as the same text. */
  private static final class Canonical {
    private final StringBuilder text = new StringBuilder();

    Canonical token(String s) {
      if (s == null) {
        text.append("-1:");
      } else {
        text.append(s.length()).append(':').append(s);
      }
      return this;
    }

    Canonical map(Map<String, String> map) {
      if (map == null) {
        return token(null);
      }
      token(String.valueOf(map.size()));
      // Sorted: the same labels in another order are the same labels.
      new TreeMap<>(map).forEach((k, v) -> token(k).token(v));
      return this;
    }

    byte[] digest() {
      try {
        return MessageDigest.getInstance("SHA-256")
            .digest(text.toString().getBytes(StandardCharsets.UTF_8));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every Java runtime has SHA-256", e);
      }
    }
  }
}
