package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;
import static dev.bosun.web.WebServiceOperator.CONTAINER;

import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.model.SecurityContexts;
import dev.bosun.web.model.WebServiceMapper;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LifecycleBuilder;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Pod template a WebService spec asks for: its container, sidecars and init containers, and the
 * Pod around them.
 */
public final class PodTemplates {

  private PodTemplates() {}

  /** The Pod template of {@code spec}, labelled as a Pod of {@code ws}. */
  public static PodTemplateSpec of(WebService ws, WebServiceSpec spec) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withLabels(podLabels(ws, spec))
        .withAnnotations(
            spec.getPodAnnotations() == null || spec.getPodAnnotations().isEmpty()
                ? null
                : new LinkedHashMap<>(spec.getPodAnnotations()))
        .endMetadata()
        .withSpec(podSpec(ws, spec))
        .build();
  }

  /** The Pod: the main container first, then the sidecars, under the spec's Pod settings. */
  private static PodSpec podSpec(WebService ws, WebServiceSpec spec) {
    WebServiceMapper map = WebServiceMapper.INSTANCE;
    var security = SecurityContexts.of(spec);
    SecurityContext containerSecurity = map.containerSecurityContext(security);
    List<Container> containers = new ArrayList<>();
    containers.add(mainContainer(spec));
    orEmpty(spec.getSidecars()).forEach(c -> containers.add(extra(c, containerSecurity)));
    PodSpecBuilder pod =
        new PodSpecBuilder()
            .withContainers(containers)
            .withInitContainers(
                orEmpty(spec.getInitContainers()).stream()
                    .map(c -> extra(c, containerSecurity))
                    .toList())
            .withTerminationGracePeriodSeconds(spec.getTerminationGracePeriodSeconds())
            .withVolumes(orEmpty(spec.getVolumes()))
            .withImagePullSecrets(orEmpty(spec.getImagePullSecrets()))
            .withTolerations(orEmpty(spec.getTolerations()))
            .withTopologySpreadConstraints(spreadConstraints(ws, spec))
            .withAffinity(spec.getAffinity())
            .withServiceAccountName(spec.getServiceAccountName())
            .withSecurityContext(map.podSecurityContext(security));
    if (spec.getNodeSelector() != null && !spec.getNodeSelector().isEmpty()) {
      pod.withNodeSelector(new LinkedHashMap<>(spec.getNodeSelector()));
    }
    return pod.build();
  }

  /** The WebService's own container; its probes and hooks on the first port by default. */
  private static Container mainContainer(WebServiceSpec spec) {
    WebServiceMapper map = WebServiceMapper.INSTANCE;
    String firstPort = spec.getPorts().get(0).getName();
    ContainerBuilder container =
        new ContainerBuilder()
            .withName(CONTAINER)
            .withImage(spec.getImage())
            .withImagePullPolicy(spec.getImagePullPolicy().getValue())
            // Empty lists, never null: JOSDK's pod template sanitizer dereferences them.
            .withCommand(orEmpty(spec.getCommand()))
            .withArgs(orEmpty(spec.getArgs()))
            .withPorts(map.containerPorts(spec.getPorts()))
            .withEnv(orEmpty(spec.getEnv()))
            .withEnvFrom(orEmpty(spec.getEnvFrom()))
            .withVolumeMounts(orEmpty(spec.getVolumeMounts()))
            .withSecurityContext(map.containerSecurityContext(SecurityContexts.of(spec)));
    if (spec.getResources() != null) {
      container.withResources(map.resources(spec.getResources()));
    }
    if (spec.getReadinessProbe() != null) {
      container.withReadinessProbe(
          withDefaultPort(map.readiness(spec.getReadinessProbe()), firstPort));
    }
    if (spec.getLivenessProbe() != null) {
      container.withLivenessProbe(
          withDefaultPort(map.liveness(spec.getLivenessProbe()), firstPort));
    }
    if (spec.getStartupProbe() != null) {
      container.withStartupProbe(withDefaultPort(map.startup(spec.getStartupProbe()), firstPort));
    }
    if (spec.getLifecycle() != null) {
      container.withLifecycle(withDefaultPort(spec.getLifecycle(), firstPort));
    }
    return container.build();
  }

  /**
   * A sidecar or init container as the spec gives it, under the main container's security context
   * (safe by default), its lists never null and its probes on its own first port by default. A
   * copy: the spec's objects are the informer cache's.
   */
  private static Container extra(Container given, SecurityContext security) {
    Container c =
        new ContainerBuilder(given)
            .withCommand(orEmpty(given.getCommand()))
            .withArgs(orEmpty(given.getArgs()))
            .withEnv(orEmpty(given.getEnv()))
            .withEnvFrom(orEmpty(given.getEnvFrom()))
            .withPorts(orEmpty(given.getPorts()))
            .withVolumeMounts(orEmpty(given.getVolumeMounts()))
            .withSecurityContext(security)
            .build();
    if (!c.getPorts().isEmpty()) {
      ContainerPort first = c.getPorts().get(0);
      IntOrString port =
          first.getName() != null
              ? new IntOrString(first.getName())
              : new IntOrString(first.getContainerPort());
      for (Probe probe : new Probe[] {c.getReadinessProbe(), c.getLivenessProbe()}) {
        if (probe != null) {
          withDefaultPort(probe, port);
        }
      }
    }
    return c;
  }

  /** The hooks, an httpGet hook on the first port by default; a copy of the spec's. */
  private static Lifecycle withDefaultPort(Lifecycle given, String firstPort) {
    Lifecycle lifecycle = new LifecycleBuilder(given).build();
    for (LifecycleHandler h :
        new LifecycleHandler[] {lifecycle.getPostStart(), lifecycle.getPreStop()}) {
      if (h != null && h.getHttpGet() != null && h.getHttpGet().getPort() == null) {
        h.getHttpGet().setPort(new IntOrString(firstPort));
      }
    }
    return lifecycle;
  }

  /** The user's Pod labels, then Bosun's: the selector labels always win. */
  static Map<String, String> podLabels(WebService ws, WebServiceSpec spec) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (spec.getPodLabels() != null) {
      labels.putAll(spec.getPodLabels());
    }
    labels.putAll(Labels.of(ws, APP, COMPONENT, WebServiceOperator.NAME));
    return labels;
  }

  /** A constraint without a selector spreads this WebService's own Pods. */
  private static List<TopologySpreadConstraint> spreadConstraints(
      WebService ws, WebServiceSpec spec) {
    return orEmpty(spec.getTopologySpreadConstraints()).stream()
        .map(
            c ->
                c.getLabelSelector() != null
                    ? c
                    : new TopologySpreadConstraintBuilder(c)
                        .withNewLabelSelector()
                        .withMatchLabels(Labels.selector(ws, APP, COMPONENT))
                        .endLabelSelector()
                        .build())
        .toList();
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static Probe withDefaultPort(Probe probe, String firstPort) {
    return withDefaultPort(probe, new IntOrString(firstPort));
  }

  private static Probe withDefaultPort(Probe probe, IntOrString port) {
    if (probe.getHttpGet() != null && probe.getHttpGet().getPort() == null) {
      probe.getHttpGet().setPort(port);
    }
    if (probe.getTcpSocket() != null && probe.getTcpSocket().getPort() == null) {
      probe.getTcpSocket().setPort(port);
    }
    return probe;
  }
}
