package dev.bosun.common.dependent;

import dev.bosun.common.meta.OwnerReferences;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Server-side applies a desired child object under the operator's field manager, but only when it
 * differs from what was last applied (a hash annotation): a converged resource causes no writes,
 * and since the live objects come from the informers' cache, no reads either. An object of the same
 * name that the owner does not control is never touched.
 *
 * @param <P> the custom resource owning the children
 */
public final class Applier<P extends HasMetadata> {

  private final KubernetesClient client;
  private final ChildCache<P> cache;
  private final String fieldManager;
  private final String hashAnnotation;

  /**
   * An applier writing as {@code fieldManager} and keeping the applied hash in the annotation
   * {@code hashAnnotation}.
   */
  public Applier(
      KubernetesClient client, ChildCache<P> cache, String fieldManager, String hashAnnotation) {
    this.client = client;
    this.cache = cache;
    this.fieldManager = fieldManager;
    this.hashAnnotation = hashAnnotation;
  }

  /** What happened to one object. */
  public enum Result {
    UNCHANGED,
    APPLIED
  }

  /**
   * Applies {@code desired} owned by {@code owner}; an existing object someone else controls is
   * never touched and reported instead.
   */
  public <T extends HasMetadata> Result apply(P owner, T desired) throws ForeignObjectException {
    String hash = hash(desired);
    // Not in the label-scoped cache: it may still exist under someone else's labels, so ask.
    T live = cache.liveOf(desired).orElseGet(() -> read(desired));
    if (live != null && !OwnerReferences.isControlledBy(live, owner)) {
      throw new ForeignObjectException(
          desired.getKind()
              + " "
              + desired.getMetadata().getName()
              + " already exists and is not managed by this "
              + owner.getKind()
              + "; rename the "
              + owner.getKind()
              + " or delete that "
              + desired.getKind());
    }
    if (live != null
        && hash.equals(
            Optional.ofNullable(live.getMetadata().getAnnotations())
                .map(a -> a.get(hashAnnotation))
                .orElse(null))) {
      return Result.UNCHANGED;
    }
    var annotations =
        new HashMap<>(
            Optional.ofNullable(desired.getMetadata().getAnnotations()).orElse(new HashMap<>()));
    annotations.put(hashAnnotation, hash);
    desired.getMetadata().setAnnotations(annotations);
    T applied =
        client.resource(desired).fieldManager(fieldManager).forceConflicts().serverSideApply();
    cache.written(applied, live);
    return Result.APPLIED;
  }

  @SuppressWarnings("unchecked")
  private <T extends HasMetadata> T read(T desired) {
    return (T)
        client
            .resources(desired.getClass())
            .inNamespace(desired.getMetadata().getNamespace())
            .withName(desired.getMetadata().getName())
            .get();
  }

  static String hash(HasMetadata desired) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest(Serialization.asJson(desired).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An object with the desired name exists and belongs to someone else. */
  public static final class ForeignObjectException extends Exception {
    public ForeignObjectException(String message) {
      super(message);
    }
  }
}
