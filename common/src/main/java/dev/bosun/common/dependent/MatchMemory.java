package dev.bosun.common.dependent;

import static io.javaoperatorsdk.operator.processing.dependent.kubernetes.SSABasedGenericKubernetesResourceMatcher.APPLY_OPERATION;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
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
 * Per child (by uid), what its last successful match depended on: the child's generation (its
 * resourceVersion for kinds without one), labels, annotations, owners and the operator's own field
 * set, and the inputs of the desired object it was matched with. While none of these changed, the
 * child still matches.
 */
final class MatchMemory {

  /** Past this, the memory starts over (a match is only recomputed, never wrong). */
  private static final int MAX_REMEMBERED = 100_000;

  private final Map<String, Fingerprint> matched = new ConcurrentHashMap<>();

  /**
   * True while nothing the last match depended on changed; otherwise {@code compare}'s answer,
   * remembered when it is a match.
   */
  boolean remembered(
      ObjectMeta actual, String inputs, String fieldManager, BooleanSupplier compare) {
    String uid = actual.getUid();
    if (uid == null) {
      return compare.getAsBoolean();
    }
    Fingerprint now = Fingerprint.of(actual, fieldManager, inputs);
    if (now.equals(matched.get(uid))) {
      return true;
    }
    boolean matches = compare.getAsBoolean();
    if (matches) {
      put(uid, now);
    } else {
      matched.remove(uid);
    }
    return matches;
  }

  /**
   * Remembers a child as this operator just wrote it from {@code inputs}: it matches what it was
   * written from, so the reconciles its own status updates cause need not compare it.
   */
  void written(ObjectMeta child, String inputs, String fieldManager) {
    if (child.getUid() != null) {
      put(child.getUid(), Fingerprint.of(child, fieldManager, inputs));
    }
  }

  private void put(String uid, Fingerprint fingerprint) {
    if (matched.size() >= MAX_REMEMBERED) {
      matched.clear();
    }
    matched.put(uid, fingerprint);
  }

  /** How many children are remembered as matching. */
  int size() {
    return matched.size();
  }

  /**
   * What a match depends on, held as a digest: a record of the maps themselves would keep each
   * child's labels, annotations and owners alive twice (the informer replaces its copy on every
   * status update). A spec change moves the generation (for kinds that keep one; otherwise any
   * write moves the resourceVersion); labels, annotations and owners do not, so they are in the
   * digest; the own field set changes when another manager takes a field.
   */
  private record Fingerprint(String version, byte[] digest) {

    static Fingerprint of(ObjectMeta meta, String fieldManager, String inputs) {
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
                  : CompactFieldsV1.jsonOf(fields.getAdditionalProperties()));
        }
      }
      text.token(inputs);
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
