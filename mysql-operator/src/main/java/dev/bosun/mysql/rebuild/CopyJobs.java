package dev.bosun.mysql.rebuild;

import static dev.bosun.common.dependent.UnprivilegedPods.env;
import static dev.bosun.common.dependent.UnprivilegedPods.mount;

import dev.bosun.common.dependent.ControllerOwner;
import dev.bosun.common.dependent.RunOnceJobs;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.runtime.OperatorImage;
import dev.bosun.common.transfer.AccessTokens;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The Job that copies a snapshot of a healthy member into the member being rebuilt ({@link
 * CopyMember}), in the cluster's own namespace and with nothing of the operator's privilege: no
 * ServiceAccount token, a non-root user, no capability, a read-only root. It logs in to both
 * members with the cluster's operator account from its Secret {@code <cluster>-rebuild}. A copy
 * never runs twice over what it wrote: no retries ({@link RunOnceJobs}).
 */
public final class CopyJobs {

  /** Longest a copy may run before Kubernetes stops it. */
  public static final long DEADLINE_SECONDS = 6 * 3600;

  /** The copy container's name. */
  public static final String COPY = "copy";

  /** The label of the Job's Pods naming their cluster (the member selectors never match it). */
  public static final String REBUILD_OF = "mysql.bosun.dev/rebuild-of";

  /** The Secret's key holding the operator account's name. */
  public static final String USER_KEY = "user";

  /** The Secret's key holding the operator account's password. */
  public static final String PASSWORD_KEY = "password";

  static final String COMPONENT = "rebuild";
  static final String SECRET_MOUNT = "/var/run/bosun/rebuild";

  private CopyJobs() {}

  /** What one copy is: which member from which, with which images and SQL timeout. */
  public record Spec(
      String operatorImage,
      String member,
      Address target,
      Address source,
      Flavour flavour,
      Duration sqlTimeout) {}

  /**
   * The Job's name: one per cluster incarnation ({@link RunOnceJobs#name}), since a cluster
   * rebuilds one member at a time; a restarted operator finds the Job of the attempt before and
   * removes it.
   */
  public static String name(MySQLCluster cluster) {
    return RunOnceJobs.name(cluster, "rebuild");
  }

  /** The Secret's name for a cluster. */
  public static String secretName(MySQLCluster cluster) {
    return cluster.getMetadata().getName() + "-rebuild";
  }

  /** The Secret the copy logs in with, owned by the cluster. */
  public static Secret secret(MySQLCluster cluster, Credentials credentials) {
    var meta = cluster.getMetadata();
    return new SecretBuilder()
        .withNewMetadata()
        .withName(secretName(cluster))
        .withNamespace(meta.getNamespace())
        .withLabels(Labels.of(cluster, MySQLOperator.APP, COMPONENT, MySQLOperator.NAME))
        .withOwnerReferences(ControllerOwner.of(cluster))
        .endMetadata()
        .withType("Opaque")
        .withData(
            Map.of(
                USER_KEY,
                AccessTokens.base64(credentials.operatorUser()),
                PASSWORD_KEY,
                AccessTokens.base64(credentials.operatorPassword())))
        .build();
  }

  /** The Job copying {@code spec.source()} into {@code spec.target()}. */
  public static Job desired(MySQLCluster cluster, Spec spec) {
    Container copy =
        RunOnceJobs.container(
            COPY,
            spec.operatorImage(),
            List.of("java", "-cp", OperatorImage.CLASSPATH, CopyMember.class.getName()),
            List.of(
                env(CopyMember.TARGET, spec.target().toString()),
                env(CopyMember.SOURCE, spec.source().toString()),
                env(CopyMember.FLAVOUR, spec.flavour().name()),
                env(CopyMember.SQL_TIMEOUT_SECONDS, Long.toString(spec.sqlTimeout().toSeconds())),
                env(CopyMember.CREDENTIALS_DIR, SECRET_MOUNT),
                env("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=40")),
            List.of(mount("rebuild", SECRET_MOUNT, true), mount("tmp", "/tmp", false)),
            "256Mi",
            "768Mi");
    return RunOnceJobs.job(
        cluster,
        new RunOnceJobs.Spec(
            name(cluster),
            Labels.of(cluster, MySQLOperator.APP, COMPONENT, MySQLOperator.NAME),
            Map.of(CopyMember.MEMBER_ANNOTATION, spec.member()),
            Map.of(REBUILD_OF, cluster.getMetadata().getName()),
            MySQLOperator.JOB_USER,
            DEADLINE_SECONDS,
            List.of(),
            List.of(copy),
            // The snapshot is written under /tmp; the Secret holds a password.
            List.of(
                RunOnceJobs.emptyDir("tmp"), RunOnceJobs.secret("rebuild", secretName(cluster)))));
  }
}
