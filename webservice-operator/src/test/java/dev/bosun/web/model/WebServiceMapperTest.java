package dev.bosun.web.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebServiceMapperTest {

  private static final WebServiceMapper MAP = WebServiceMapper.INSTANCE;

  private static final String PORTS =
      """
      image: nginx
      ports:
        - {name: http, port: 80, containerPort: 8080}
        - {name: metrics, port: 9090}
        - {name: dns, port: 53, protocol: UDP, nodePort: 30053}
      """;

  @Test
  void containerPortsDefaultToThePort() {
    List<ContainerPort> ports = MAP.containerPorts(spec(PORTS).getPorts());

    assertThat(ports)
        .extracting(
            ContainerPort::getName, ContainerPort::getContainerPort, ContainerPort::getProtocol)
        .containsExactly(
            tuple("http", 8080, "TCP"), tuple("metrics", 9090, "TCP"), tuple("dns", 53, "UDP"));
    assertThat(ports).allSatisfy(p -> assertThat(p.getHostPort()).isNull());
  }

  @Test
  void servicePortsTargetTheContainerPortByName() {
    List<ServicePort> ports = MAP.servicePorts(spec(PORTS).getPorts());

    assertThat(ports).hasSize(3);
    ServicePort http = ports.get(0);
    assertThat(http.getName()).isEqualTo("http");
    assertThat(http.getPort()).isEqualTo(80);
    assertThat(http.getTargetPort()).isEqualTo(new IntOrString("http"));
    assertThat(http.getProtocol()).isEqualTo("TCP");
    assertThat(http.getNodePort()).isNull();
    ServicePort dns = ports.get(2);
    assertThat(dns.getTargetPort()).isEqualTo(new IntOrString("dns"));
    assertThat(dns.getProtocol()).isEqualTo("UDP");
    assertThat(dns.getNodePort()).isEqualTo(30053);
  }

  @Test
  void aMissingProtocolMapsToTcp() {
    WebServiceSpec spec = spec(PORTS);
    spec.getPorts().get(0).setProtocol(null);

    assertThat(MAP.containerPort(spec.getPorts().get(0)).getProtocol()).isEqualTo("TCP");
    assertThat(MAP.servicePort(spec.getPorts().get(0)).getProtocol()).isEqualTo("TCP");
  }

  @Test
  void httpGetReadinessProbe() {
    Probe probe =
        MAP.readiness(
            spec("""
                    image: nginx
                    ports: [{name: http, port: 80}]
                    readinessProbe:
                      httpGet: {path: /ready, port: http, scheme: HTTPS}
                      initialDelaySeconds: 5
                      periodSeconds: 7
                      timeoutSeconds: 2
                      failureThreshold: 4
                    """)
                .getReadinessProbe());

    assertThat(probe.getHttpGet().getPath()).isEqualTo("/ready");
    assertThat(probe.getHttpGet().getPort()).isEqualTo(new IntOrString("http"));
    assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTPS");
    assertThat(probe.getTcpSocket()).isNull();
    assertThat(probe.getExec()).isNull();
    assertThat(probe.getInitialDelaySeconds()).isEqualTo(5);
    assertThat(probe.getPeriodSeconds()).isEqualTo(7);
    assertThat(probe.getTimeoutSeconds()).isEqualTo(2);
    assertThat(probe.getFailureThreshold()).isEqualTo(4);
    assertThat(probe.getSuccessThreshold()).isNull();
  }

  @Test
  void httpGetWithoutPortOrSchemeGetsTheSchemaDefaults() {
    Probe probe =
        MAP.liveness(
            spec("""
                    image: nginx
                    ports: [{name: http, port: 80}]
                    livenessProbe:
                      httpGet: {path: /healthz}
                    """)
                .getLivenessProbe());

    assertThat(probe.getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(probe.getHttpGet().getPort()).isNull();
    assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTP");
    assertThat(probe.getInitialDelaySeconds()).isZero();
    assertThat(probe.getPeriodSeconds()).isEqualTo(10);
    assertThat(probe.getTimeoutSeconds()).isEqualTo(1);
    assertThat(probe.getFailureThreshold()).isEqualTo(3);
  }

  @Test
  void tcpSocketLivenessProbe() {
    Probe probe =
        MAP.liveness(
            spec("""
                    image: nginx
                    ports: [{name: http, port: 80}]
                    livenessProbe:
                      tcpSocket: {port: http}
                      failureThreshold: 6
                    """)
                .getLivenessProbe());

    assertThat(probe.getTcpSocket().getPort()).isEqualTo(new IntOrString("http"));
    assertThat(probe.getHttpGet()).isNull();
    assertThat(probe.getExec()).isNull();
    assertThat(probe.getFailureThreshold()).isEqualTo(6);
  }

  @Test
  void tcpSocketWithoutPort() {
    Probe probe =
        MAP.readiness(
            spec("""
                    image: nginx
                    ports: [{name: http, port: 80}]
                    readinessProbe:
                      tcpSocket: {}
                    """)
                .getReadinessProbe());

    assertThat(probe.getTcpSocket()).isNotNull();
    assertThat(probe.getTcpSocket().getPort()).isNull();
  }

  @Test
  void execProbes() {
    WebServiceSpec spec =
        spec(
            """
            image: nginx
            ports: [{name: http, port: 80}]
            readinessProbe:
              exec: {command: [cat, /tmp/ready]}
            livenessProbe:
              exec: {command: [/bin/sh, -c, "pgrep nginx"]}
              timeoutSeconds: 3
            """);

    Probe readiness = MAP.readiness(spec.getReadinessProbe());
    Probe liveness = MAP.liveness(spec.getLivenessProbe());

    assertThat(readiness.getExec().getCommand()).containsExactly("cat", "/tmp/ready");
    assertThat(readiness.getHttpGet()).isNull();
    assertThat(liveness.getExec().getCommand()).containsExactly("/bin/sh", "-c", "pgrep nginx");
    assertThat(liveness.getTimeoutSeconds()).isEqualTo(3);
  }

  @Test
  void noProbeMapsToNull() {
    assertThat(MAP.readiness(null)).isNull();
    assertThat(MAP.liveness(null)).isNull();
  }

  @Test
  void resourcesMapToQuantities() {
    ResourceRequirements resources =
        MAP.resources(
            spec("""
                    image: nginx
                    ports: [{name: http, port: 80}]
                    resources:
                      requests: {cpu: 250m, memory: 256Mi}
                      limits: {cpu: "1", memory: 1Gi}
                    """)
                .getResources());

    assertThat(resources.getRequests())
        .containsExactly(
            Map.entry("cpu", new Quantity("250m")), Map.entry("memory", new Quantity("256Mi")));
    assertThat(resources.getLimits())
        .containsExactly(
            Map.entry("cpu", new Quantity("1")), Map.entry("memory", new Quantity("1Gi")));
  }

  @Test
  void partialResources() {
    ResourceRequirements resources =
        MAP.resources(
            spec("""
                    image: nginx
                    ports: [{name: http, port: 80}]
                    resources:
                      requests: {memory: 128Mi}
                      limits: {}
                    """)
                .getResources());

    assertThat(resources.getRequests()).containsOnlyKeys("memory");
    assertThat(resources.getRequests().get("memory")).isEqualTo(new Quantity("128Mi"));
    // An empty limits object maps to no limits at all.
    assertThat(resources.getLimits()).isNullOrEmpty();
  }

  @Test
  void onlyLimits() {
    ResourceRequirements resources =
        MAP.resources(
            spec("""
                    image: nginx
                    ports: [{name: http, port: 80}]
                    resources:
                      limits: {cpu: 500m}
                    """)
                .getResources());

    assertThat(resources.getLimits()).containsExactly(Map.entry("cpu", new Quantity("500m")));
    assertThat(resources.getRequests()).isNullOrEmpty();
  }

  @Test
  void onlyRequests() {
    ResourceRequirements resources =
        MAP.resources(
            spec("""
                image: nginx
                ports: [{name: http, port: 80}]
                resources:
                  requests: {memory: 64Mi}
                """)
                .getResources());

    assertThat(resources.getRequests()).containsExactly(Map.entry("memory", new Quantity("64Mi")));
    assertThat(resources.getLimits()).isNullOrEmpty();
  }

  private static WebServiceSpec spec(String specYaml) {
    String yaml =
        "apiVersion: web.bosun.dev/v1alpha1\n"
            + "kind: WebService\n"
            + "metadata: {name: shop, namespace: ns}\n"
            + "spec:\n"
            + specYaml.indent(2);
    return Serialization.unmarshal(yaml, WebService.class).getSpec();
  }
}
