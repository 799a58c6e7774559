package dev.bosun.etcd.restore;

import dev.bosun.common.meta.Labels;
import dev.bosun.common.transfer.AccessTokens;
import dev.bosun.common.transfer.RestoreGrants;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Map;
import java.util.Optional;

/**
 * The Secret {@code <cluster>-restore} that lets the first member of a cluster restored from the
 * operator's backup volume fetch its snapshot: a random token (the member's init container sends it
 * as a bearer token), the operator's CA (the init container trusts only it), and the one snapshot
 * key it may fetch. Owned by the EtcdCluster; a new restore of the same cluster replaces both. Any
 * operator replica answering a fetch reads it from the API server, so nothing depends on the
 * leader's memory.
 */
public final class RestoreSecrets {

  /** Data key of the token. */
  public static final String TOKEN = AccessTokens.TOKEN;

  /**
   * Data key of the operator's CA (PEM): the fetch container trusts only it. Kept with the token so
   * that one Secret volume, readable in the cluster's own namespace, gives the fetch container
   * everything it needs, and a new restore replaces both at once.
   */
  public static final String CA = AccessTokens.CA;

  /** Annotation naming the snapshot key the token grants (relative to the backup directory). */
  public static final String KEY_ANNOTATION = "etcd.bosun.dev/restore-key";

  /** The Secret's component label. */
  static final String COMPONENT = "restore";

  private RestoreSecrets() {}

  /** The Secret's name for a cluster. */
  public static String name(String cluster) {
    return cluster + "-restore";
  }

  /** A new token ({@link AccessTokens#newToken}). */
  public static String newToken() {
    return AccessTokens.newToken();
  }

  /**
   * The Secret granting {@code token} the snapshot {@code key}, served under a certificate of the
   * CA {@code caBundle} (PEM); owner references left to the caller.
   */
  public static Secret desired(EtcdCluster cluster, String key, String token, String caBundle) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name(cluster.getMetadata().getName()))
        .withNamespace(cluster.getMetadata().getNamespace())
        .withLabels(Labels.of(cluster, EtcdOperator.APP, COMPONENT, EtcdOperator.NAME))
        .withAnnotations(Map.of(KEY_ANNOTATION, key))
        .endMetadata()
        .withType("Opaque")
        .withData(Map.of(TOKEN, base64(token), CA, base64(caBundle)))
        .build();
  }

  /**
   * Whether {@code secret} is the operator's restore Secret of {@code cluster}: managed by this
   * operator and owned by the EtcdCluster of that name. Anything else under the name is ignored.
   */
  public static boolean isFor(Secret secret, String cluster) {
    return RestoreGrants.isFor(secret, EtcdOperator.NAME, "EtcdCluster", cluster);
  }

  /** The snapshot key the Secret grants, if it names one. */
  public static Optional<String> key(Secret secret) {
    return RestoreGrants.annotation(secret, KEY_ANNOTATION);
  }

  /** Whether {@code presented} is the Secret's token ({@link AccessTokens#accepts}). */
  public static boolean accepts(Secret secret, String presented) {
    return AccessTokens.accepts(secret, presented);
  }

  private static String base64(String text) {
    return AccessTokens.base64(text);
  }
}
