package dev.bosun.web.status;

import dev.bosun.common.dependent.TrimmedItemStore;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.util.List;

/**
 * The Pod informer's store: a Pod is kept as its metadata and container states, all the status
 * reads (its problems) and the canary planner needs (its track label). The spec and the conditions
 * are most of a Pod and are read by nothing here.
 */
public final class PodProblemsItemStore extends TrimmedItemStore<Pod> {

  @Override
  public Pod put(String key, Pod pod) {
    pod.setSpec(null);
    PodStatus status = pod.getStatus();
    if (status != null) {
      pod.setStatus(
          new PodStatusBuilder()
              .withContainerStatuses(containers(status.getContainerStatuses()))
              .build());
    }
    return super.put(key, pod);
  }

  private static List<ContainerStatus> containers(List<ContainerStatus> statuses) {
    if (statuses == null) {
      return null;
    }
    return statuses.stream()
        .map(
            cs ->
                new ContainerStatusBuilder()
                    .withName(cs.getName())
                    .withState(cs.getState())
                    .withLastState(cs.getLastState())
                    .withReady(cs.getReady())
                    .build())
        .toList();
  }
}
