package dev.bosun.mysql.rebuild;

import static dev.bosun.common.dependent.UnprivilegedPods.env;
import static dev.bosun.common.dependent.UnprivilegedPods.mount;

import dev.bosun.common.dependent.ControllerOwner;
import dev.bosun.common.dependent.UnprivilegedPods;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.runtime.OperatorImage;
import dev.bosun.common.transfer.AccessTokens;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.sql.Flavour;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.workload.Credentials;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.time.Duration;
import java.util.Map;

/**
 * The Job that copies a snapshot of a healthy member into the member being rebuilt ({@link
 * CopyMember}), in the cluster's own namespace and with nothing of the operator's privilege: no
 * ServiceAccount token, a non-root user, no capability, a read-only root. It logs in to both
 * members with the cluster's operator account from its Secret {@code <cluster>-rebuild}. A copy
 * never runs twice over what it wrote: no retries.
 */
public final class CopyJobs {

  /** Retries of a failed copy: none; the operator decides whether to rebuild again. */
  public static final int BACKOFF_LIMIT = 0;

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
  static final long USER = 999;

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
   * The Job's name: one per cluster incarnation (its UID), since a cluster rebuilds one member at a
   * time; a restarted operator finds the Job of the attempt before and removes it first.
   */
  public static String name(MySQLCluster cluster) {
    String uid = cluster.getMetadata().getUid().replace("-", "");
    String base = cluster.getMetadata().getName();
    String suffix = "-rebuild-" + uid.substring(0, Math.min(8, uid.length()));
    // Job names are label values of their Pods: 63 characters at most.
    return base.substring(0, Math.min(base.length(), 63 - suffix.length())) + suffix;
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
    var meta = cluster.getMetadata();
    Container copy =
        new ContainerBuilder()
            .withName(COPY)
            .withImage(spec.operatorImage())
            .withCommand("java", "-cp", OperatorImage.CLASSPATH, CopyMember.class.getName())
            .withEnv(
                env(CopyMember.TARGET, spec.target().toString()),
                env(CopyMember.SOURCE, spec.source().toString()),
                env(CopyMember.FLAVOUR, spec.flavour().name()),
                env(CopyMember.SQL_TIMEOUT_SECONDS, Long.toString(spec.sqlTimeout().toSeconds())),
                env(CopyMember.CREDENTIALS_DIR, SECRET_MOUNT),
                env("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=40"))
            .withVolumeMounts(mount("rebuild", SECRET_MOUNT, true), mount("tmp", "/tmp", false))
            .withSecurityContext(UnprivilegedPods.containerSecurity())
            .withTerminationMessagePolicy("FallbackToLogsOnError")
            .withNewResources()
            .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("256Mi")))
            .withLimits(Map.of("memory", new Quantity("768Mi")))
            .endResources()
            .build();
    return new JobBuilder()
        .withNewMetadata()
        .withName(name(cluster))
        .withNamespace(meta.getNamespace())
        .withLabels(Labels.of(cluster, MySQLOperator.APP, COMPONENT, MySQLOperator.NAME))
        .withAnnotations(Map.of(CopyMember.MEMBER_ANNOTATION, spec.member()))
        .withOwnerReferences(ControllerOwner.of(cluster))
        .endMetadata()
        .withNewSpec()
        .withBackoffLimit(BACKOFF_LIMIT)
        .withActiveDeadlineSeconds(DEADLINE_SECONDS)
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of(REBUILD_OF, meta.getName()))
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withSecurityContext(UnprivilegedPods.podSecurity(USER))
        .withContainers(copy)
        .addNewVolume()
        .withName("tmp")
        .withNewEmptyDir()
        .endEmptyDir()
        .endVolume()
        .addNewVolume()
        .withName("rebuild")
        .withNewSecret()
        .withSecretName(secretName(cluster))
        // Read by the Pod's group only (fsGroup): it holds a password.
        .withDefaultMode(0440)
        .endSecret()
        .endVolume()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }
}
