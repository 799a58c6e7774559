package dev.bosun.mysql.restore;

import dev.bosun.common.dependent.ControllerOwner;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.transfer.AccessTokens;
import dev.bosun.common.transfer.RestoreGrants;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Map;
import java.util.Optional;

/**
 * The Secret {@code <cluster>-restore} of a restore Job, in the cluster's namespace: the token that
 * lets the Job's fetch container take the checked dump from the operator, the operator's CA (the
 * only one that container trusts), the client option file the load container logs in with, and the
 * dump key the token grants. Owned by the MySQLCluster; a new attempt replaces it whole.
 */
public final class LoadSecrets {

  /** Data key of the client option file (the operator's database user and password). */
  public static final String CLIENT_OPTIONS = "client.cnf";

  /** Annotation naming the dump key the token grants. */
  public static final String KEY_ANNOTATION = "mysql.bosun.dev/restore-key";

  static final String COMPONENT = "restore";

  private LoadSecrets() {}

  /** The Secret's name for a cluster. */
  public static String name(String cluster) {
    return cluster + "-restore";
  }

  /** The Secret granting {@code token} the checked dump {@code key}, owned by the cluster. */
  public static Secret desired(
      MySQLCluster cluster, String key, String token, String caBundle, Credentials credentials) {
    var meta = cluster.getMetadata();
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name(meta.getName()))
        .withNamespace(meta.getNamespace())
        .withLabels(Labels.of(cluster, MySQLOperator.APP, COMPONENT, MySQLOperator.NAME))
        .withAnnotations(Map.of(KEY_ANNOTATION, key))
        .withOwnerReferences(ControllerOwner.of(cluster))
        .endMetadata()
        .withType("Opaque")
        .withData(
            Map.of(
                AccessTokens.TOKEN,
                AccessTokens.base64(token),
                AccessTokens.CA,
                AccessTokens.base64(caBundle),
                CLIENT_OPTIONS,
                AccessTokens.base64(LogicalDump.clientDefaults(credentials))))
        .build();
  }

  /**
   * Whether {@code secret} is this operator's restore Secret of {@code cluster}: managed by it and
   * owned by the MySQLCluster of that name. Anything else under the name grants nothing.
   */
  public static boolean isFor(Secret secret, String cluster) {
    return RestoreGrants.isFor(secret, MySQLOperator.NAME, "MySQLCluster", cluster);
  }

  /** The dump key the Secret grants, if it names one. */
  public static Optional<String> key(Secret secret) {
    return RestoreGrants.annotation(secret, KEY_ANNOTATION);
  }
}
