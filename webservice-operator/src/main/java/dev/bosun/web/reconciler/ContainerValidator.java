package dev.bosun.web.reconciler;

import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.Ports;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rules of the sidecars, init containers, lifecycle hooks, canary analysis and autoscaling
 * metrics that the schema cannot state (a 1.20 API server evaluates no CEL) and that the API server
 * would refuse only when the Deployment is written. Each problem is a sentence naming the field.
 */
final class ContainerValidator {

  private ContainerValidator() {}

  static List<String> validate(WebServiceSpec spec) {
    List<String> problems = new ArrayList<>();
    Set<String> volumes =
        orEmpty(spec.getVolumes()).stream().map(Volume::getName).collect(Collectors.toSet());
    Set<String> names = new LinkedHashSet<>(List.of(WebServiceOperator.CONTAINER));
    for (Container c : orEmpty(spec.getSidecars())) {
      container("spec.sidecars[" + c.getName() + "]", c, names, volumes, problems);
      Set<String> ports =
          orEmpty(c.getPorts()).stream()
              .map(ContainerPort::getName)
              .filter(Objects::nonNull)
              .collect(Collectors.toSet());
      boolean anyPort = !orEmpty(c.getPorts()).isEmpty();
      probe(
          "spec.sidecars[" + c.getName() + "].readinessProbe",
          c.getReadinessProbe(),
          ports,
          anyPort,
          problems);
      probe(
          "spec.sidecars[" + c.getName() + "].livenessProbe",
          c.getLivenessProbe(),
          ports,
          anyPort,
          problems);
    }
    for (Container c : orEmpty(spec.getInitContainers())) {
      container("spec.initContainers[" + c.getName() + "]", c, names, volumes, problems);
    }
    if (spec.getLifecycle() != null) {
      Set<String> ports = spec.getPorts().stream().map(Ports::getName).collect(Collectors.toSet());
      hook("spec.lifecycle.postStart", spec.getLifecycle().getPostStart(), ports, problems);
      hook("spec.lifecycle.preStop", spec.getLifecycle().getPreStop(), ports, problems);
    }
    var analysis =
        spec.getRollout() == null || spec.getRollout().getCanary() == null
            ? null
            : spec.getRollout().getCanary().getAnalysis();
    if (analysis != null
        && analysis.getHttp().getPort() != null
        && spec.getPorts().stream()
            .noneMatch(p -> analysis.getHttp().getPort().equals(p.getName()))) {
      problems.add(
          "spec.rollout.canary.analysis.http uses port '"
              + analysis.getHttp().getPort()
              + "', which is not in spec.ports "
              + spec.getPorts().stream().map(Ports::getName).toList());
    }
    var autoscaling = spec.getAutoscaling();
    if (autoscaling != null
        && autoscaling.getTargetMemoryUtilizationPercentage() != null
        && (spec.getResources() == null
            || spec.getResources().getRequests() == null
            || spec.getResources().getRequests().getMemory() == null)) {
      problems.add(
          "spec.autoscaling.targetMemoryUtilizationPercentage is a percentage of the memory"
              + " request: set spec.resources.requests.memory");
    }
    return problems;
  }

  private static void container(
      String field, Container c, Set<String> names, Set<String> volumes, List<String> problems) {
    if (!names.add(c.getName())) {
      problems.add(
          field + ": the name " + c.getName() + " is taken by another container of the Pod");
    }
    for (EnvVar e : orEmpty(c.getEnv())) {
      if (e.getValue() != null && e.getValueFrom() != null) {
        problems.add(field + ".env[" + e.getName() + "] sets both value and valueFrom: keep one");
      }
    }
    for (VolumeMount m : orEmpty(c.getVolumeMounts())) {
      if (!volumes.contains(m.getName())) {
        problems.add(
            field
                + ".volumeMounts["
                + m.getMountPath()
                + "] mounts volume '"
                + m.getName()
                + "', which is not in spec.volumes");
      }
      if (m.getSubPath() != null && List.of(m.getSubPath().split("/")).contains("..")) {
        problems.add(
            field + ".volumeMounts[" + m.getMountPath() + "].subPath must not contain '..'");
      }
    }
  }

  /** A sidecar's probe: one handler, on one of its own ports (its first when none is named). */
  private static void probe(
      String field, Probe p, Set<String> ports, boolean anyPort, List<String> problems) {
    if (p == null) {
      return;
    }
    int handlers =
        (p.getHttpGet() == null ? 0 : 1)
            + (p.getTcpSocket() == null ? 0 : 1)
            + (p.getExec() == null ? 0 : 1);
    if (handlers != 1) {
      problems.add(field + " needs exactly one of httpGet, tcpSocket or exec");
      return;
    }
    IntOrString port =
        p.getHttpGet() != null
            ? p.getHttpGet().getPort()
            : p.getTcpSocket() != null ? p.getTcpSocket().getPort() : null;
    if (p.getExec() == null && port == null && !anyPort) {
      problems.add(field + " names no port and the sidecar has none: add ports or a port");
    } else if (port != null && port.getStrVal() != null && !ports.contains(port.getStrVal())) {
      problems.add(
          field + " uses port '" + port.getStrVal() + "', which is not among the sidecar's ports");
    }
  }

  private static void hook(
      String field, LifecycleHandler h, Set<String> ports, List<String> problems) {
    if (h == null) {
      return;
    }
    int handlers = (h.getHttpGet() == null ? 0 : 1) + (h.getExec() == null ? 0 : 1);
    if (handlers != 1) {
      problems.add(field + " needs exactly one of exec or httpGet");
      return;
    }
    IntOrString port = h.getHttpGet() == null ? null : h.getHttpGet().getPort();
    if (port != null && port.getStrVal() != null && !ports.contains(port.getStrVal())) {
      problems.add(
          field + " uses port '" + port.getStrVal() + "', which is not in spec.ports " + ports);
    }
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
