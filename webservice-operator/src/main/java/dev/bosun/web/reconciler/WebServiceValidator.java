package dev.bosun.web.reconciler;

import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.Ports;
import dev.bosun.web.v1alpha1.webservicespec.Service;
import dev.bosun.web.v1alpha1.webservicespec.ingress.Paths;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rules the CRD states as CEL (which a 1.20 server does not evaluate) and the ones no schema
 * can state. Each problem is a sentence telling the user what to change. The reconciler reports
 * them as InvalidSpec and the admission webhook refuses them at apply time, both through {@link
 * #problems(WebService)}.
 */
public final class WebServiceValidator {

  private WebServiceValidator() {}

  /** Problems with the WebService's name and spec; empty when it is valid. */
  public static List<String> problems(WebService ws) {
    List<String> problems = new ArrayList<>(WebServiceNames.problems(ws));
    problems.addAll(validate(ws.getSpec()));
    return problems;
  }

  /** Problems with the spec; empty when it is valid. */
  public static List<String> validate(WebServiceSpec spec) {
    List<String> problems = new ArrayList<>();
    Set<String> portNames = checkPorts(spec, problems);
    checkAutoscaling(spec, problems);
    checkEnv(spec, problems);
    checkProbes(spec, portNames, problems);
    checkResources(spec, problems);
    checkIngress(spec, portNames, problems);
    if (spec.getRollout() != null
        && spec.getRollout().getCanary() != null
        && spec.getAutoscaling() != null) {
      problems.add(
          "spec.rollout.canary needs a fixed spec.replicas: remove spec.autoscaling or the canary");
    }
    problems.addAll(PodSpecValidator.validate(spec));
    problems.addAll(ContainerValidator.validate(spec));
    return problems;
  }

  /** Ports listed twice and node ports the Service type cannot have; returns the port names. */
  private static Set<String> checkPorts(WebServiceSpec spec, List<String> problems) {
    Set<String> portNames = new HashSet<>();
    Set<String> servicePorts = new HashSet<>();
    Set<Integer> nodePorts = new HashSet<>();
    boolean clusterIp = spec.getService().getType() == Service.Type.CLUSTERIP;
    for (Ports p : spec.getPorts()) {
      portNames.add(p.getName());
      if (!servicePorts.add(p.getPort() + "/" + p.getProtocol().getValue())) {
        problems.add(
            "spec.ports: port "
                + p.getPort()
                + "/"
                + p.getProtocol().getValue()
                + " is listed twice");
      }
      if (p.getNodePort() != null) {
        if (clusterIp) {
          problems.add(
              "spec.ports["
                  + p.getName()
                  + "].nodePort needs spec.service.type NodePort or LoadBalancer");
        } else if (!nodePorts.add(p.getNodePort())) {
          problems.add("spec.ports: nodePort " + p.getNodePort() + " is used twice");
        }
      }
    }
    return portNames;
  }

  private static void checkAutoscaling(WebServiceSpec spec, List<String> problems) {
    var autoscaling = spec.getAutoscaling();
    if (autoscaling != null
        && autoscaling.getMinReplicas() != null
        && autoscaling.getMinReplicas() > autoscaling.getMaxReplicas()) {
      problems.add(
          "spec.autoscaling.minReplicas ("
              + autoscaling.getMinReplicas()
              + ") exceeds maxReplicas ("
              + autoscaling.getMaxReplicas()
              + ")");
    }
  }

  private static void checkEnv(WebServiceSpec spec, List<String> problems) {
    if (spec.getEnv() == null) {
      return;
    }
    for (EnvVar e : spec.getEnv()) {
      if (e.getValue() != null && e.getValueFrom() != null) {
        problems.add("spec.env[" + e.getName() + "] sets both value and valueFrom: keep one");
      }
    }
  }

  private static void checkProbes(
      WebServiceSpec spec, Set<String> portNames, List<String> problems) {
    var readiness = spec.getReadinessProbe();
    if (readiness != null) {
      checkProbe(
          "readinessProbe",
          readiness.getHttpGet() != null ? readiness.getHttpGet().getPort() : null,
          readiness.getTcpSocket() != null ? readiness.getTcpSocket().getPort() : null,
          count(readiness.getHttpGet(), readiness.getTcpSocket(), readiness.getExec()),
          portNames,
          problems);
    }
    var liveness = spec.getLivenessProbe();
    if (liveness != null) {
      checkProbe(
          "livenessProbe",
          liveness.getHttpGet() != null ? liveness.getHttpGet().getPort() : null,
          liveness.getTcpSocket() != null ? liveness.getTcpSocket().getPort() : null,
          count(liveness.getHttpGet(), liveness.getTcpSocket(), liveness.getExec()),
          portNames,
          problems);
    }
    var startup = spec.getStartupProbe();
    if (startup != null) {
      checkProbe(
          "startupProbe",
          startup.getHttpGet() != null ? startup.getHttpGet().getPort() : null,
          startup.getTcpSocket() != null ? startup.getTcpSocket().getPort() : null,
          count(startup.getHttpGet(), startup.getTcpSocket(), startup.getExec()),
          portNames,
          problems);
    }
  }

  private static void checkResources(WebServiceSpec spec, List<String> problems) {
    var resources = spec.getResources();
    if (resources == null || resources.getRequests() == null || resources.getLimits() == null) {
      return;
    }
    checkRequestWithinLimit(
        "cpu", resources.getRequests().getCpu(), resources.getLimits().getCpu(), problems);
    checkRequestWithinLimit(
        "memory", resources.getRequests().getMemory(), resources.getLimits().getMemory(), problems);
  }

  private static void checkIngress(
      WebServiceSpec spec, Set<String> portNames, List<String> problems) {
    var ingress = spec.getIngress();
    if (ingress == null) {
      return;
    }
    if (ingress.getHost().matches("[0-9.]+")) {
      problems.add("spec.ingress.host must be a DNS name, not an IP address");
    }
    for (var path : ingress.getPaths() == null ? List.<Paths>of() : ingress.getPaths()) {
      if (path.getPort() != null && !portNames.contains(path.getPort())) {
        problems.add(
            "spec.ingress.paths["
                + path.getPath()
                + "] uses port '"
                + path.getPort()
                + "', which is not in spec.ports "
                + portNames);
      }
    }
  }

  private static int count(Object... handlers) {
    int n = 0;
    for (Object h : handlers) {
      if (h != null) {
        n++;
      }
    }
    return n;
  }

  private static void checkProbe(
      String field,
      String httpPort,
      String tcpPort,
      int handlers,
      Set<String> portNames,
      List<String> problems) {
    if (handlers != 1) {
      problems.add("spec." + field + " needs exactly one of httpGet, tcpSocket or exec");
    }
    for (String port : new String[] {httpPort, tcpPort}) {
      if (port != null && !portNames.contains(port)) {
        problems.add(
            "spec." + field + " uses port '" + port + "', which is not in spec.ports " + portNames);
      }
    }
  }

  private static void checkRequestWithinLimit(
      String resource, String request, String limit, List<String> problems) {
    if (request == null || limit == null) {
      return;
    }
    BigDecimal requested = Quantity.getAmountInBytes(new Quantity(request));
    BigDecimal limited = Quantity.getAmountInBytes(new Quantity(limit));
    if (requested.compareTo(limited) > 0) {
      problems.add(
          "spec.resources.requests."
              + resource
              + " ("
              + request
              + ") exceeds spec.resources.limits."
              + resource
              + " ("
              + limit
              + ")");
    }
  }
}
