package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebServiceValidatorTest {

  /** A spec using every field the validator looks at, all of it valid. */
  private static final String VALID =
      """
      image: registry.example.com/team/app:1.4.2
      replicas: 2
      ports:
        - name: http
          port: 80
          containerPort: 8080
        - name: dns
          port: 53
          protocol: UDP
        - name: dns-tcp
          port: 53
          protocol: TCP
        - name: admin
          port: 9000
          nodePort: 30900
      service:
        type: NodePort
      env:
        - name: PLAIN
          value: "1"
        - name: FROM_SECRET
          valueFrom:
            secretKeyRef: {name: creds, key: password}
      readinessProbe:
        httpGet: {path: /ready, port: admin}
      livenessProbe:
        tcpSocket: {port: http}
      autoscaling:
        minReplicas: 2
        maxReplicas: 5
      resources:
        requests: {cpu: 250m, memory: 256Mi}
        limits: {cpu: "1", memory: 1Gi}
      """;

  @Test
  void aValidSpecHasNoProblems() {
    assertThat(WebServiceValidator.validate(spec(VALID))).isEmpty();
  }

  @Test
  void aMinimalSpecHasNoProblems() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80}]
                    """)))
        .isEmpty();
  }

  @Test
  void samePortAndProtocolTwice() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports:
                  - {name: http, port: 80}
                  - {name: web, port: 80, protocol: TCP}
                """));

    assertThat(problems).containsExactly("spec.ports: port 80/TCP is listed twice");
  }

  @Test
  void nodePortWithClusterIp() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports:
                  - {name: http, port: 80, nodePort: 30080}
                service:
                  type: ClusterIP
                """));

    assertThat(problems).hasSize(1);
    assertThat(problems.get(0))
        .contains("spec.ports[http].nodePort")
        .contains("NodePort or LoadBalancer");
  }

  @Test
  void nodePortWithTheDefaultServiceType() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80, nodePort: 30080}]
                    """)))
        .singleElement()
        .asString()
        .contains("spec.ports[http].nodePort");
  }

  @Test
  void nodePortWithLoadBalancerIsFine() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80, nodePort: 30080}]
                    service: {type: LoadBalancer}
                    """)))
        .isEmpty();
  }

  @Test
  void sameNodePortTwiceWithNodePortService() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports:
                  - {name: http, port: 80, nodePort: 30080}
                  - {name: https, port: 443, nodePort: 30080}
                service: {type: NodePort}
                """));

    assertThat(problems).containsExactly("spec.ports: nodePort 30080 is used twice");
  }

  @Test
  void autoscalingMinAboveMax() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                autoscaling: {minReplicas: 4, maxReplicas: 3}
                """));

    assertThat(problems)
        .singleElement()
        .asString()
        .contains("spec.autoscaling.minReplicas (4)")
        .contains("maxReplicas (3)");
  }

  @Test
  void autoscalingMinEqualToMaxIsFine() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80}]
                    autoscaling: {minReplicas: 3, maxReplicas: 3}
                    """)))
        .isEmpty();
  }

  @Test
  void envWithValueAndValueFrom() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                env:
                  - name: OK
                    value: "1"
                  - name: BOTH
                    value: "x"
                    valueFrom:
                      configMapKeyRef: {name: cfg, key: k}
                """));

    assertThat(problems)
        .singleElement()
        .asString()
        .contains("spec.env[BOTH]")
        .contains("value and valueFrom");
  }

  @Test
  void probeWithoutHandler() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                readinessProbe:
                  periodSeconds: 5
                """));

    assertThat(problems)
        .containsExactly("spec.readinessProbe needs exactly one of httpGet, tcpSocket or exec");
  }

  @Test
  void probeWithTwoHandlers() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                livenessProbe:
                  httpGet: {path: /healthz}
                  exec: {command: [/bin/true]}
                """));

    assertThat(problems)
        .containsExactly("spec.livenessProbe needs exactly one of httpGet, tcpSocket or exec");
  }

  @Test
  void probeWithExecOnlyIsFine() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80}]
                    livenessProbe:
                      exec: {command: [/bin/true]}
                    """)))
        .isEmpty();
  }

  @Test
  void httpProbePortNotInPorts() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                readinessProbe:
                  httpGet: {path: /ready, port: metrics}
                """));

    assertThat(problems)
        .singleElement()
        .asString()
        .contains("spec.readinessProbe")
        .contains("'metrics'")
        .contains("spec.ports");
  }

  @Test
  void tcpProbePortNotInPorts() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                livenessProbe:
                  tcpSocket: {port: grpc}
                """));

    assertThat(problems)
        .singleElement()
        .asString()
        .contains("spec.livenessProbe")
        .contains("'grpc'");
  }

  @Test
  void cpuRequestAboveLimit() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                resources:
                  requests: {cpu: "2"}
                  limits: {cpu: 500m}
                """));

    assertThat(problems)
        .containsExactly(
            "spec.resources.requests.cpu (2) exceeds spec.resources.limits.cpu (500m)");
  }

  @Test
  void memoryRequestAboveLimit() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports: [{name: http, port: 80}]
                resources:
                  requests: {memory: 1Gi}
                  limits: {memory: 512Mi}
                """));

    assertThat(problems)
        .containsExactly(
            "spec.resources.requests.memory (1Gi) exceeds spec.resources.limits.memory (512Mi)");
  }

  @Test
  void requestsEqualToLimitsInOtherUnitsAreFine() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80}]
                    resources:
                      requests: {cpu: 500m, memory: 512Mi}
                      limits: {cpu: "0.5", memory: 512Mi}
                    """)))
        .isEmpty();
  }

  @Test
  void memoryComparesDecimalAndBinarySuffixes() {
    // 1G = 10^9 bytes is less than 1Gi = 2^30 bytes.
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80}]
                    resources:
                      requests: {memory: 1G}
                      limits: {memory: 1Gi}
                    """)))
        .isEmpty();
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80}]
                    resources:
                      requests: {memory: 1Gi}
                      limits: {memory: 1G}
                    """)))
        .singleElement()
        .asString()
        .contains("spec.resources.requests.memory");
  }

  @Test
  void aRequestWithoutLimitIsFine() {
    assertThat(
            WebServiceValidator.validate(
                spec(
                    """
                    image: nginx
                    ports: [{name: http, port: 80}]
                    resources:
                      requests: {cpu: "8", memory: 64Gi}
                      limits: {memory: 128Gi}
                    """)))
        .isEmpty();
  }

  @Test
  void everyProblemIsReported() {
    List<String> problems =
        WebServiceValidator.validate(
            spec(
                """
                image: nginx
                ports:
                  - {name: http, port: 80, nodePort: 30080}
                  - {name: web, port: 80}
                autoscaling: {minReplicas: 9, maxReplicas: 2}
                readinessProbe: {tcpSocket: {port: nope}}
                resources:
                  requests: {cpu: "2"}
                  limits: {cpu: "1"}
                """));

    assertThat(problems)
        .hasSize(5)
        .anySatisfy(p -> assertThat(p).contains("listed twice"))
        .anySatisfy(p -> assertThat(p).contains("nodePort"))
        .anySatisfy(p -> assertThat(p).contains("spec.autoscaling.minReplicas"))
        .anySatisfy(p -> assertThat(p).contains("'nope'"))
        .anySatisfy(p -> assertThat(p).contains("spec.resources.requests.cpu"));
  }

  private static WebServiceSpec spec(String specYaml) {
    String yaml =
        "apiVersion: web.bosun.dev/v1alpha1\n"
            + "kind: WebService\n"
            + "metadata: {name: shop, namespace: ns}\n"
            + "spec:\n"
            + specYaml.indent(2);
    WebService ws = Serialization.unmarshal(yaml, WebService.class);
    return ws.getSpec();
  }
}
