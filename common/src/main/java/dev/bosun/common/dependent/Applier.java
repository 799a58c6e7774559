package dev.bosun.common.dependent;

import dev.bosun.common.meta.OwnerReferences;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * Server-side applies a desired child object under the operator's field manager, but only when it
 * differs from what was last applied (a hash annotation): a converged resource causes no writes,
 * and since the live objects come from the informers' cache, no reads either. An object of the same
 * name that is not the owner's (by default: that the owner does not control) is never touched.
 * Every operator writes its hand-made children through it; JOSDK's managed dependents stay JOSDK's.
 *
 * @param <P> the custom resource owning the children
 */
public final class Applier<P extends HasMetadata> {

  private final KubernetesClient client;
  private final ChildCache<P> cache;
  private final String fieldManager;
  private final String hashAnnotation;
  private final Ownership<P> ownership;

  /**
   * An applier writing as {@code fieldManager} and keeping the applied hash in the annotation
   * {@code hashAnnotation}; an object is the owner's when the owner controls it.
   */
  public Applier(
      KubernetesClient client, ChildCache<P> cache, String fieldManager, String hashAnnotation) {
    this(client, cache, fieldManager, hashAnnotation, Ownership.controller());
  }

  /**
   * The same with the owner's objects told by {@code ownership}. Without a {@code hashAnnotation}
   * no hash is kept and every {@link #apply} writes: the caller has already decided that the live
   * object differs (a planner that compares content).
   */
  public Applier(
      KubernetesClient client,
      ChildCache<P> cache,
      String fieldManager,
      String hashAnnotation,
      Ownership<P> ownership) {
    this.client = client;
    this.cache = cache;
    this.fieldManager = fieldManager;
    this.hashAnnotation = hashAnnotation;
    this.ownership = ownership;
  }

  /** Which existing objects are the owner's to write over. */
  @FunctionalInterface
  public interface Ownership<P extends HasMetadata> {

    /** Whether {@code live} belongs to {@code owner}. */
    boolean owns(P owner, HasMetadata live);

    /** The owner's controller reference on the object. */
    static <P extends HasMetadata> Ownership<P> controller() {
      return (owner, live) -> OwnerReferences.isControlledBy(live, owner);
    }
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
    return apply(owner, desired, (live, wanted) -> true);
  }

  /**
   * The same, also writing when the live object no longer {@code holds} what {@code desired} asks
   * for although it carries the same hash: someone changed it, and it is put back.
   */
  public <T extends HasMetadata> Result apply(
      P owner, T desired, BiPredicate<? super T, ? super T> holds) throws ForeignObjectException {
    return apply(owner, desired, cache.liveOf(desired), holds);
  }

  /**
   * The same, with the live object as the caller's own cache holds it ({@code cached}; empty: the
   * server is asked), for children no informer of the owner follows (copies in other namespaces).
   */
  public <T extends HasMetadata> Result apply(
      P owner, T desired, Optional<T> cached, BiPredicate<? super T, ? super T> holds)
      throws ForeignObjectException {
    T live = owned(owner, desired, cached);
    String hash = hashAnnotation == null ? null : hash(desired);
    if (live != null
        && hash != null
        && hash.equals(appliedHash(live))
        && holds.test(live, desired)) {
      return Result.UNCHANGED;
    }
    if (hash != null) {
      var annotations =
          new HashMap<>(
              Optional.ofNullable(desired.getMetadata().getAnnotations()).orElse(new HashMap<>()));
      annotations.put(hashAnnotation, hash);
      desired.getMetadata().setAnnotations(annotations);
    }
    write(desired, live);
    return Result.APPLIED;
  }

  /**
   * Creates {@code desired} unless the owner's object of that name exists, which is left as it is:
   * for objects that are made once and never changed (a Pod, a volume claim). A plain create, not
   * an apply: it fails rather than touch an object made since the look.
   */
  public <T extends HasMetadata> Result create(P owner, T desired) throws ForeignObjectException {
    if (owned(owner, desired, cache.liveOf(desired)) != null) {
      return Result.UNCHANGED;
    }
    cache.written(client.resource(desired).create(), null);
    return Result.APPLIED;
  }

  /** The live object of {@code desired}'s name, null when there is none; refused if foreign. */
  private <T extends HasMetadata> T owned(P owner, T desired, Optional<T> cached)
      throws ForeignObjectException {
    // Not in the label-scoped cache: it may still exist under someone else's labels, so ask.
    T live = cached.orElseGet(() -> read(desired));
    if (live != null && !ownership.owns(owner, live)) {
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
    return live;
  }

  private String appliedHash(HasMetadata live) {
    return Optional.ofNullable(live.getMetadata().getAnnotations())
        .map(a -> a.get(hashAnnotation))
        .orElse(null);
  }

  private <T extends HasMetadata> void write(T desired, T live) {
    T applied =
        client.resource(desired).fieldManager(fieldManager).forceConflicts().serverSideApply();
    cache.written(applied, live);
  }

  @SuppressWarnings("unchecked")
  private <T extends HasMetadata> T read(T desired) {
    if (desired instanceof GenericKubernetesResource generic) {
      return (T)
          client
              .genericKubernetesResources(generic.getApiVersion(), generic.getKind())
              .inNamespace(desired.getMetadata().getNamespace())
              .withName(desired.getMetadata().getName())
              .get();
    }
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
