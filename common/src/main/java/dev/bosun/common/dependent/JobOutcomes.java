package dev.bosun.common.dependent;

import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** How a Job ended, read from its conditions and, when it failed, from its Pod's containers. */
public final class JobOutcomes {

  private JobOutcomes() {}

  /** Whether the Job finished, one way or the other. */
  public static boolean finished(Job job) {
    return succeeded(job) || failed(job);
  }

  /** Whether the Job completed. */
  public static boolean succeeded(Job job) {
    return condition(job, "Complete");
  }

  /** Whether the Job failed (its Pod failed, or its deadline passed). */
  public static boolean failed(Job job) {
    return condition(job, "Failed");
  }

  /** The Pod {@code job} ran, if it can be read now (read once, when the Job failed). */
  public static Optional<Pod> podOf(KubernetesClient client, Job job) {
    try {
      return client
          .pods()
          .inNamespace(job.getMetadata().getNamespace())
          .withLabel("controller-uid", job.getMetadata().getUid())
          .list()
          .getItems()
          .stream()
          .findFirst();
    } catch (KubernetesClientException e) {
      // The failure is then told from the Job's own condition.
      return Optional.empty();
    }
  }

  /** The first container of {@code pod}, init containers first, that ended with a non-zero code. */
  public static Optional<ContainerStatus> failedContainer(Pod pod) {
    if (pod.getStatus() == null) {
      return Optional.empty();
    }
    return Stream.concat(
            statuses(pod.getStatus().getInitContainerStatuses()),
            statuses(pod.getStatus().getContainerStatuses()))
        .filter(
            s ->
                s.getState() != null
                    && s.getState().getTerminated() != null
                    && s.getState().getTerminated().getExitCode() != 0)
        .findFirst();
  }

  /** "the &lt;what&gt; Job &lt;name&gt; failed", with the Job's own reason, at most {@code max}. */
  public static String failedSentence(Job job, String what, int max) {
    String message =
        job.getStatus() == null || job.getStatus().getConditions() == null
            ? null
            : job.getStatus().getConditions().stream()
                .filter(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()))
                .map(c -> c.getMessage())
                .findFirst()
                .orElse(null);
    return "the "
        + what
        + " Job "
        + job.getMetadata().getName()
        + " failed"
        + (message == null || message.isBlank() ? "" : ": " + HumanMessages.bounded(message, max));
  }

  private static Stream<ContainerStatus> statuses(List<ContainerStatus> list) {
    return list == null ? Stream.empty() : list.stream();
  }

  private static boolean condition(Job job, String type) {
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
