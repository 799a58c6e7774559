package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;
import static dev.bosun.web.WebServiceOperator.CONTAINER;

import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.model.WebServiceMapper;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.SecurityContext;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The Pod template a WebService spec asks for: one container, and the Pod around it. */
public final class PodTemplates {

  private PodTemplates() {}

  /** The Pod template of {@code spec}, labelled as a Pod of {@code ws}. */
  public static PodTemplateSpec of(WebService ws, WebServiceSpec spec) {
    WebServiceMapper map = WebServiceMapper.INSTANCE;
    String firstPort = spec.getPorts().get(0).getName();
    SecurityContext security =
        spec.getSecurityContext() == null ? new SecurityContext() : spec.getSecurityContext();
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
            .withSecurityContext(map.containerSecurityContext(security));
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
    PodSpecBuilder pod =
        new PodSpecBuilder()
            .withContainers(container.build())
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
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withLabels(podLabels(ws, spec))
        .withAnnotations(
            spec.getPodAnnotations() == null || spec.getPodAnnotations().isEmpty()
                ? null
                : new LinkedHashMap<>(spec.getPodAnnotations()))
        .endMetadata()
        .withSpec(pod.build())
        .build();
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
    if (probe.getHttpGet() != null && probe.getHttpGet().getPort() == null) {
      probe.getHttpGet().setPort(new IntOrString(firstPort));
    }
    if (probe.getTcpSocket() != null && probe.getTcpSocket().getPort() == null) {
      probe.getTcpSocket().setPort(new IntOrString(firstPort));
    }
    return probe;
  }
}
