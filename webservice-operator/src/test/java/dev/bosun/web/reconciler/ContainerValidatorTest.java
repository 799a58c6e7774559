package dev.bosun.web.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.WebServices;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sidecar, init container, hook and autoscaling rules the schema cannot state. */
class ContainerValidatorTest {

  private static final String BASE =
      """
      image: registry.example.com/shop:1
      ports: [{name: http, port: 80, containerPort: 8080}]
      volumes: [{name: config, configMap: {name: shop-config}}]
      """;

  private static List<String> problems(String extra) {
    return ContainerValidator.validate(WebServices.fromYaml("shop", BASE + extra).getSpec());
  }

  @Test
  void validSidecarsInitContainersHooksAndMetricsHaveNoProblems() {
    assertThat(
            problems(
                """
                sidecars:
                  - name: proxy
                    image: envoyproxy/envoy:v1.30.1
                    ports: [{name: admin, containerPort: 9901}]
                    readinessProbe: {httpGet: {path: /ready}}
                    livenessProbe: {tcpSocket: {port: admin}}
                    volumeMounts: [{name: config, mountPath: /etc/envoy}]
                  - name: logs
                    image: fluent/fluent-bit:3.0
                    readinessProbe: {exec: {command: [true]}}
                initContainers:
                  - name: migrate
                    image: registry.example.com/shop-migrate:1
                    env: [{name: MODE, value: up}]
                lifecycle:
                  preStop: {exec: {command: [sleep, "5"]}}
                  postStart: {httpGet: {path: /warm, port: http}}
                resources: {requests: {memory: 128Mi}}
                autoscaling:
                  maxReplicas: 4
                  targetMemoryUtilizationPercentage: 70
                  customMetrics: [{name: http_requests_per_second, averageValue: "100"}]
                """))
        .isEmpty();
  }

  @Test
  void containerNamesAreUniqueInThePodAndAppIsTheMainContainers() {
    assertThat(
            problems(
                """
                sidecars:
                  - {name: app, image: busybox}
                  - {name: proxy, image: envoyproxy/envoy:v1}
                initContainers:
                  - {name: proxy, image: busybox}
                """))
        .containsExactly(
            "spec.sidecars[app]: the name app is taken by another container of the Pod",
            "spec.initContainers[proxy]: the name proxy is taken by another container of the Pod");
  }

  @Test
  void mountsNeedAKnownVolumeAndNoDotDot() {
    assertThat(
            problems(
                """
                sidecars:
                  - name: proxy
                    image: envoyproxy/envoy:v1
                    volumeMounts: [{name: config, mountPath: /a, subPath: ../x}]
                initContainers:
                  - name: init
                    image: busybox
                    volumeMounts: [{name: nowhere, mountPath: /b}]
                """))
        .containsExactly(
            "spec.sidecars[proxy].volumeMounts[/a].subPath must not contain '..'",
            "spec.initContainers[init].volumeMounts[/b] mounts volume 'nowhere', which is not in"
                + " spec.volumes");
  }

  @Test
  void envTakesValueOrValueFrom() {
    assertThat(
            problems(
                """
                initContainers:
                  - name: init
                    image: busybox
                    env: [{name: A, value: x, valueFrom: {secretKeyRef: {name: s, key: k}}}]
                """))
        .containsExactly(
            "spec.initContainers[init].env[A] sets both value and valueFrom: keep one");
  }

  @Test
  void aSidecarsProbeUsesItsOwnPorts() {
    assertThat(
            problems(
                """
                sidecars:
                  - name: a
                    image: busybox
                    readinessProbe: {httpGet: {path: /ready}}
                  - name: b
                    image: busybox
                    ports: [{name: admin, containerPort: 9901}]
                    livenessProbe: {tcpSocket: {port: http}}
                  - name: c
                    image: busybox
                    readinessProbe: {httpGet: {path: /ready}, exec: {command: [true]}}
                """))
        .containsExactly(
            "spec.sidecars[a].readinessProbe names no port and the sidecar has none: add ports or"
                + " a port",
            "spec.sidecars[b].livenessProbe uses port 'http', which is not among the sidecar's"
                + " ports",
            "spec.sidecars[c].readinessProbe needs exactly one of httpGet, tcpSocket or exec");
  }

  @Test
  void aHookTakesOneHandlerOnAKnownPort() {
    assertThat(
            problems(
                """
                lifecycle:
                  preStop: {httpGet: {path: /drain, port: admin}}
                  postStart: {httpGet: {path: /warm}, exec: {command: [true]}}
                """))
        .containsExactly(
            "spec.lifecycle.postStart needs exactly one of exec or httpGet",
            "spec.lifecycle.preStop uses port 'admin', which is not in spec.ports [http]");
  }

  @Test
  void theAnalysisChecksAKnownPort() {
    String analysis =
        """
        replicas: 2
        rollout:
          canary:
            steps: [{weight: 50}]
            analysis: {http: {path: /healthz, port: %s}}
        """;
    assertThat(problems(analysis.formatted("http"))).isEmpty();
    assertThat(problems(analysis.formatted("admin")))
        .containsExactly(
            "spec.rollout.canary.analysis.http uses port 'admin', which is not in spec.ports"
                + " [http]");
  }

  @Test
  void aMemoryTargetNeedsAMemoryRequest() {
    assertThat(
            problems(
                """
                autoscaling: {maxReplicas: 3, targetMemoryUtilizationPercentage: 70}
                resources: {requests: {cpu: 100m}}
                """))
        .containsExactly(
            "spec.autoscaling.targetMemoryUtilizationPercentage is a percentage of the memory"
                + " request: set spec.resources.requests.memory");
  }
}
