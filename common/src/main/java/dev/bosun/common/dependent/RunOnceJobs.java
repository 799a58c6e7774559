package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import java.util.Map;

/**
 * Jobs an operator runs once on a tenant's data in the tenant's namespace (a restore's load, a
 * rebuild's copy): owned by the custom resource, never retried (a second run would write over what
 * the first wrote), bounded in time, their Pods {@link UnprivilegedPods unprivileged}, with no
 * ServiceAccount token and no service links.
 */
public final class RunOnceJobs {

  /** Retries of a failed run: none. */
  public static final int BACKOFF_LIMIT = 0;

  private RunOnceJobs() {}

  /**
   * What one kind of such Job is made of.
   *
   * @param name the Job's name ({@link #name})
   * @param labels the Job's labels
   * @param annotations the Job's annotations
   * @param podLabels its Pod's labels: never those that select the owner's workload
   * @param user the user (and group) every container runs as
   * @param deadlineSeconds the longest it may run before Kubernetes stops it
   */
  public record Spec(
      String name,
      Map<String, String> labels,
      Map<String, String> annotations,
      Map<String, String> podLabels,
      long user,
      long deadlineSeconds,
      List<Container> initContainers,
      List<Container> containers,
      List<Volume> volumes) {}

  /**
   * The name of {@code owner}'s Job for {@code purpose}: one per owner incarnation (its UID), so a
   * restarted operator finds the Job it made, and an owner re-created under the same name never
   * finds the Job of the one before.
   */
  public static String name(HasMetadata owner, String purpose) {
    String uid = owner.getMetadata().getUid().replace("-", "");
    String base = owner.getMetadata().getName();
    String suffix = "-" + purpose + "-" + uid.substring(0, Math.min(8, uid.length()));
    // Job names are label values of their Pods: 63 characters at most.
    return base.substring(0, Math.min(base.length(), 63 - suffix.length())) + suffix;
  }

  /** The Job, in the owner's namespace. */
  public static Job job(HasMetadata owner, Spec spec) {
    return new JobBuilder()
        .withNewMetadata()
        .withName(spec.name())
        .withNamespace(owner.getMetadata().getNamespace())
        .withLabels(spec.labels())
        .withAnnotations(spec.annotations())
        .withOwnerReferences(ControllerOwner.of(owner))
        .endMetadata()
        .withNewSpec()
        .withBackoffLimit(BACKOFF_LIMIT)
        .withActiveDeadlineSeconds(spec.deadlineSeconds())
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(spec.podLabels())
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withSecurityContext(UnprivilegedPods.podSecurity(spec.user()))
        .withInitContainers(spec.initContainers())
        .withContainers(spec.containers())
        .withVolumes(spec.volumes())
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /**
   * A container of such a Job: unprivileged, its log's tail kept as the termination message when it
   * fails, its memory bounded.
   */
  public static Container container(
      String name,
      String image,
      List<String> command,
      List<EnvVar> env,
      List<VolumeMount> mounts,
      String memoryRequest,
      String memoryLimit) {
    return new ContainerBuilder()
        .withName(name)
        .withImage(image)
        .withCommand(command)
        .withEnv(env)
        .withVolumeMounts(mounts)
        .withSecurityContext(UnprivilegedPods.containerSecurity())
        .withTerminationMessagePolicy("FallbackToLogsOnError")
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity(memoryRequest)))
        .withLimits(Map.of("memory", new Quantity(memoryLimit)))
        .endResources()
        .build();
  }

  /** An emptyDir volume. */
  public static Volume emptyDir(String name) {
    return new VolumeBuilder().withName(name).withNewEmptyDir().endEmptyDir().build();
  }

  /** A Secret volume readable by the Pod's group only (its fsGroup): it may hold a password. */
  public static Volume secret(String name, String secretName) {
    return new VolumeBuilder()
        .withName(name)
        .withNewSecret()
        .withSecretName(secretName)
        .withDefaultMode(0440)
        .endSecret()
        .build();
  }
}
