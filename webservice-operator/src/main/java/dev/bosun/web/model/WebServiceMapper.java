package dev.bosun.web.model;

import dev.bosun.web.v1alpha1.webservicespec.LivenessProbe;
import dev.bosun.web.v1alpha1.webservicespec.Ports;
import dev.bosun.web.v1alpha1.webservicespec.ReadinessProbe;
import dev.bosun.web.v1alpha1.webservicespec.Resources;
import dev.bosun.web.v1alpha1.webservicespec.SecurityContext;
import dev.bosun.web.v1alpha1.webservicespec.StartupProbe;
import dev.bosun.web.v1alpha1.webservicespec.livenessprobe.HttpGet;
import dev.bosun.web.v1alpha1.webservicespec.resources.Limits;
import dev.bosun.web.v1alpha1.webservicespec.resources.Requests;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mapstruct.Mapper;
import org.mapstruct.Mapping;
import org.mapstruct.ReportingPolicy;
import org.mapstruct.factory.Mappers;

/** Maps the WebService spec's parts onto the Kubernetes API types of the pod and the Service. */
@Mapper(unmappedTargetPolicy = ReportingPolicy.IGNORE, imports = IntOrString.class)
public interface WebServiceMapper {

  WebServiceMapper INSTANCE = Mappers.getMapper(WebServiceMapper.class);

  /** A container port; the container listens on {@code containerPort}, or on {@code port}. */
  @Mapping(
      target = "containerPort",
      expression = "java(p.getContainerPort() != null ? p.getContainerPort() : p.getPort())")
  @Mapping(target = "hostPort", ignore = true)
  @Mapping(target = "hostIP", ignore = true)
  ContainerPort containerPort(Ports p);

  List<ContainerPort> containerPorts(List<Ports> ports);

  /** A Service port that targets the container port by name, so either side may change. */
  @Mapping(target = "targetPort", expression = "java(new IntOrString(p.getName()))")
  @Mapping(target = "appProtocol", ignore = true)
  ServicePort servicePort(Ports p);

  List<ServicePort> servicePorts(List<Ports> ports);

  ResourceRequirements resources(Resources resources);

  @Mapping(target = "successThreshold", ignore = true)
  @Mapping(target = "terminationGracePeriodSeconds", ignore = true)
  @Mapping(target = "grpc", ignore = true)
  Probe readiness(ReadinessProbe probe);

  @Mapping(target = "successThreshold", ignore = true)
  @Mapping(target = "terminationGracePeriodSeconds", ignore = true)
  @Mapping(target = "grpc", ignore = true)
  Probe liveness(LivenessProbe probe);

  @Mapping(target = "successThreshold", ignore = true)
  @Mapping(target = "terminationGracePeriodSeconds", ignore = true)
  @Mapping(target = "grpc", ignore = true)
  Probe startup(StartupProbe probe);

  /**
   * The container's security context. The spec's defaults make it safe (non-root, no privilege
   * escalation, every capability dropped, RuntimeDefault seccomp); {@code fsGroup} belongs to the
   * Pod and is mapped by {@link #podSecurityContext}.
   */
  io.fabric8.kubernetes.api.model.SecurityContext containerSecurityContext(
      SecurityContext securityContext);

  Capabilities capabilities(
      dev.bosun.web.v1alpha1.webservicespec.securitycontext.Capabilities capabilities);

  SeccompProfile seccompProfile(
      dev.bosun.web.v1alpha1.webservicespec.securitycontext.SeccompProfile profile);

  /** The Pod's security context: only the group owning mounted volumes, when set. */
  default PodSecurityContext podSecurityContext(SecurityContext securityContext) {
    if (securityContext == null || securityContext.getFsGroup() == null) {
      return null;
    }
    PodSecurityContext pod = new PodSecurityContext();
    pod.setFsGroup(securityContext.getFsGroup());
    return pod;
  }

  default String seccompType(
      dev.bosun.web.v1alpha1.webservicespec.securitycontext.SeccompProfile.Type type) {
    return type == null ? null : type.getValue();
  }

  default String scheme(dev.bosun.web.v1alpha1.webservicespec.startupprobe.HttpGet.Scheme scheme) {
    return scheme == null ? null : scheme.getValue();
  }

  // Either part may be absent: "requests only" is the most common resources spec.
  default Map<String, Quantity> limits(Limits limits) {
    return limits == null ? null : quantities(limits.getCpu(), limits.getMemory());
  }

  default Map<String, Quantity> requests(Requests requests) {
    return requests == null ? null : quantities(requests.getCpu(), requests.getMemory());
  }

  private static Map<String, Quantity> quantities(String cpu, String memory) {
    Map<String, Quantity> result = new LinkedHashMap<>();
    if (cpu != null) {
      result.put("cpu", new Quantity(cpu));
    }
    if (memory != null) {
      result.put("memory", new Quantity(memory));
    }
    return result.isEmpty() ? null : result;
  }

  default IntOrString portName(String name) {
    return name == null ? null : new IntOrString(name);
  }

  default String protocol(Ports.Protocol protocol) {
    return protocol == null ? "TCP" : protocol.getValue();
  }

  default String scheme(HttpGet.Scheme scheme) {
    return scheme == null ? null : scheme.getValue();
  }

  default String scheme(
      dev.bosun.web.v1alpha1.webservicespec.readinessprobe.HttpGet.Scheme scheme) {
    return scheme == null ? null : scheme.getValue();
  }
}
