package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a workload's Prometheus endpoint shows on the objects the operators create, the same for
 * every operator: a port named {@value #PORT_NAME} on the container and its Service (what a
 * ServiceMonitor or PodMonitor selects by name), and the {@code prometheus.io/*} annotations that
 * annotation-based scrape configurations read from Pods.
 */
public final class MetricsEndpoints {

  /** The name of the metrics port on containers and Services. */
  public static final String PORT_NAME = "metrics";

  /** The path of the metrics endpoint. */
  public static final String PATH = "/metrics";

  private MetricsEndpoints() {}

  /** The Pod annotations announcing the endpoint on {@code port}. */
  public static Map<String, String> scrapeAnnotations(int port) {
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("prometheus.io/scrape", "true");
    annotations.put("prometheus.io/port", Integer.toString(port));
    annotations.put("prometheus.io/path", PATH);
    return annotations;
  }

  /** The container port of the endpoint. */
  public static ContainerPort containerPort(int port) {
    return new ContainerPortBuilder()
        .withName(PORT_NAME)
        .withContainerPort(port)
        .withProtocol("TCP")
        .build();
  }

  /** The Service port of the endpoint, targeting the container port by name. */
  public static ServicePort servicePort(int port) {
    return new ServicePortBuilder()
        .withName(PORT_NAME)
        .withPort(port)
        .withNewTargetPort(PORT_NAME)
        .withProtocol("TCP")
        .build();
  }
}
