package dev.bosun.mysql.dependent;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.meta.OwnerReferences;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
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
 * Server-side applies a desired object under the operator's field manager, but only when it differs
 * from what was last applied (a hash annotation): a converged cluster causes no writes, and since
 * the live objects come from the informers' cache, no reads either.
 */
public final class Applier {

  private final KubernetesClient client;
  private final ChildCache<MySQLCluster> cache;

  public Applier(KubernetesClient client, ChildCache<MySQLCluster> cache) {
    this.client = client;
    this.cache = cache;
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
  public <T extends HasMetadata> Result apply(HasMetadata owner, T desired)
      throws ForeignObjectException {
    String hash = hash(desired);
    // Not in the label-scoped cache: it may still exist under someone else's labels, so ask.
    T live = cache.liveOf(desired).orElseGet(() -> read(desired));
    if (live != null && !OwnerReferences.isControlledBy(live, owner)) {
      throw new ForeignObjectException(
          desired.getKind()
              + " "
              + desired.getMetadata().getName()
              + " already exists and is not managed by this MySQLCluster; rename the cluster or"
              + " delete that "
              + desired.getKind());
    }
    if (live != null
        && hash.equals(
            Optional.ofNullable(live.getMetadata().getAnnotations())
                .map(a -> a.get(MySQLOperator.APPLIED_HASH))
                .orElse(null))) {
      return Result.UNCHANGED;
    }
    var annotations =
        new HashMap<>(
            Optional.ofNullable(desired.getMetadata().getAnnotations()).orElse(new HashMap<>()));
    annotations.put(MySQLOperator.APPLIED_HASH, hash);
    desired.getMetadata().setAnnotations(annotations);
    T applied =
        client
            .resource(desired)
            .fieldManager(MySQLOperator.NAME)
            .forceConflicts()
            .serverSideApply();
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
