package dev.bosun.mysql.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.ArrayList;
import java.util.List;

/** What every Job the operator runs on a tenant's data must be, checked on a desired Job. */
public final class RunOnceJobAssert {

  private RunOnceJobAssert() {}

  /**
   * In the namespace {@code namespace}, owned by its cluster as controller, never retried, bounded
   * in time, its Pod without token or service links, every container unprivileged with a bounded
   * memory and its log's tail as termination message, and no member selector matching its Pod.
   */
  public static void assertRunsOnceUnprivileged(Job job, String namespace, String podLabel) {
    assertThat(job.getMetadata().getNamespace()).isEqualTo(namespace);
    assertThat(job.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getController()).isTrue());
    assertThat(job.getSpec().getBackoffLimit()).isZero();
    assertThat(job.getSpec().getActiveDeadlineSeconds()).isPositive();
    var pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getEnableServiceLinks()).isFalse();
    assertThat(pod.getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(999L);
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    List<Container> containers = new ArrayList<>(pod.getInitContainers());
    containers.addAll(pod.getContainers());
    assertThat(containers).isNotEmpty();
    for (Container c : containers) {
      assertThat(c.getSecurityContext().getPrivileged()).isFalse();
      assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
      assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
      assertThat(c.getTerminationMessagePolicy()).isEqualTo("FallbackToLogsOnError");
      assertThat(c.getResources().getLimits()).containsKey("memory");
    }
    // The member selectors (instance, component, role) never match the Job's Pod.
    assertThat(job.getSpec().getTemplate().getMetadata().getLabels()).containsOnlyKeys(podLabel);
  }
}
