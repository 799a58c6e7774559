package dev.bosun.web.dependent;

import static dev.bosun.web.dependent.DeploymentDependentTest.webService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The autoscaler on memory and custom metrics, in autoscaling/v2 or v2beta2. */
class MetricAutoscalersTest {

  private static final String SPEC =
      """
      image: nginx
      ports: [{name: http, port: 80}]
      resources: {requests: {cpu: 100m, memory: 128Mi}}
      autoscaling:
        minReplicas: 2
        maxReplicas: 10
        targetCPUUtilizationPercentage: 65
        targetMemoryUtilizationPercentage: 75
        customMetrics:
          - {name: http_requests_per_second, averageValue: "100"}
          - {name: queue_depth, averageValue: 500m}
      """;

  private static WebService ws(String spec) {
    WebService ws = webService(spec, 1);
    ws.getMetadata().setUid("uid-1");
    return ws;
  }

  @Test
  void onlyMemoryOrCustomMetricsNeedIt() {
    assertThat(MetricAutoscalers.needed(null)).isFalse();
    assertThat(
            MetricAutoscalers.needed(
                ws("image: nginx\nports: [{port: 80}]\nautoscaling: {maxReplicas: 3}\n")
                    .getSpec()
                    .getAutoscaling()))
        .as("CPU alone stays autoscaling/v1")
        .isFalse();
    assertThat(
            MetricAutoscalers.needed(
                ws("image: nginx\nports: [{port: 80}]\n"
                        + "autoscaling: {maxReplicas: 3, targetMemoryUtilizationPercentage: 60}\n")
                    .getSpec()
                    .getAutoscaling()))
        .isTrue();
    assertThat(
            MetricAutoscalers.needed(
                ws("image: nginx\nports: [{port: 80}]\n"
                        + "autoscaling: {maxReplicas: 3, customMetrics: []}\n")
                    .getSpec()
                    .getAutoscaling()))
        .isFalse();
    assertThat(MetricAutoscalers.needed(ws(SPEC).getSpec().getAutoscaling())).isTrue();
  }

  @Test
  void anAutoscalerOnceWrittenWithMetricsStaysHereWhileAutoscalingIsOn() {
    WebService cpuOnly = ws("image: nginx\nports: [{port: 80}]\nautoscaling: {maxReplicas: 3}\n");
    var plain = new io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler();
    plain.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    var written = new io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler();
    written.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    written.getMetadata().setAnnotations(Map.of(MetricAutoscalers.SPEC_DIGEST, "0123456789"));

    assertThat(MetricAutoscalers.owns(cpuOnly, java.util.Optional.empty())).isFalse();
    assertThat(MetricAutoscalers.owns(cpuOnly, java.util.Optional.of(plain))).isFalse();
    // Its metrics would outlive an autoscaling/v1 apply: the v2 apply replaces the list.
    assertThat(MetricAutoscalers.owns(cpuOnly, java.util.Optional.of(written))).isTrue();
    assertThat(MetricAutoscalers.owns(ws(SPEC), java.util.Optional.empty())).isTrue();
    WebService off = ws("image: nginx\nports: [{port: 80}]\n");
    assertThat(MetricAutoscalers.owns(off, java.util.Optional.of(written))).isFalse();
  }

  @Test
  void everyMetricAsTheV2ApiStatesIt() {
    GenericKubernetesResource desired = MetricAutoscalers.desired(ws(SPEC), MetricAutoscalers.V2);
    // The generic object reads as fabric8's typed autoscaling/v2 model: the fields are the API's.
    HorizontalPodAutoscaler hpa =
        Serialization.unmarshal(Serialization.asJson(desired), HorizontalPodAutoscaler.class);

    assertThat(hpa.getApiVersion()).isEqualTo("autoscaling/v2");
    assertThat(hpa.getKind()).isEqualTo("HorizontalPodAutoscaler");
    assertThat(hpa.getMetadata().getName()).isEqualTo("shop");
    assertThat(hpa.getMetadata().getNamespace()).isEqualTo("prod");
    assertThat(hpa.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "bosun-webservice-operator");
    assertThat(hpa.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getUid()).isEqualTo("uid-1");
              assertThat(o.getKind()).isEqualTo("WebService");
              assertThat(o.getController()).isTrue();
            });
    assertThat(hpa.getSpec().getScaleTargetRef().getKind()).isEqualTo("Deployment");
    assertThat(hpa.getSpec().getScaleTargetRef().getName()).isEqualTo("shop");
    assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(2);
    assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(10);
    var metrics = hpa.getSpec().getMetrics();
    assertThat(metrics).hasSize(4);
    assertThat(metrics.get(0).getType()).isEqualTo("Resource");
    assertThat(metrics.get(0).getResource().getName()).isEqualTo("cpu");
    assertThat(metrics.get(0).getResource().getTarget().getType()).isEqualTo("Utilization");
    assertThat(metrics.get(0).getResource().getTarget().getAverageUtilization()).isEqualTo(65);
    assertThat(metrics.get(1).getResource().getName()).isEqualTo("memory");
    assertThat(metrics.get(1).getResource().getTarget().getAverageUtilization()).isEqualTo(75);
    assertThat(metrics.get(2).getType()).isEqualTo("Pods");
    assertThat(metrics.get(2).getPods().getMetric().getName())
        .isEqualTo("http_requests_per_second");
    assertThat(metrics.get(2).getPods().getTarget().getType()).isEqualTo("AverageValue");
    assertThat(metrics.get(2).getPods().getTarget().getAverageValue().toString()).isEqualTo("100");
    assertThat(metrics.get(3).getPods().getTarget().getAverageValue().toString()).isEqualTo("500m");
  }

  @Test
  void v2beta2HasTheSameFields() {
    GenericKubernetesResource v2 = MetricAutoscalers.desired(ws(SPEC), MetricAutoscalers.V2);
    GenericKubernetesResource v2beta2 =
        MetricAutoscalers.desired(ws(SPEC), MetricAutoscalers.V2BETA2);
    assertThat(v2beta2.getApiVersion()).isEqualTo("autoscaling/v2beta2");
    assertThat(v2beta2.getAdditionalProperties()).isEqualTo(v2.getAdditionalProperties());
    var typed =
        Serialization.unmarshal(
            Serialization.asJson(v2beta2),
            io.fabric8.kubernetes.api.model.autoscaling.v2beta2.HorizontalPodAutoscaler.class);
    assertThat(typed.getSpec().getMetrics()).hasSize(4);
  }

  @Test
  void theDigestFollowsTheSpecAndNothingElse() {
    String digest = digest(MetricAutoscalers.desired(ws(SPEC), MetricAutoscalers.V2));
    assertThat(digest).hasSize(10);
    assertThat(digest(MetricAutoscalers.desired(ws(SPEC), MetricAutoscalers.V2)))
        .as("the same spec, the same digest")
        .isEqualTo(digest);
    assertThat(
            digest(
                MetricAutoscalers.desired(
                    ws(SPEC.replace("averageValue: \"100\"", "averageValue: \"200\"")),
                    MetricAutoscalers.V2)))
        .isNotEqualTo(digest);
    assertThat(
            digest(
                MetricAutoscalers.desired(
                    ws(SPEC.replace("maxReplicas: 10", "maxReplicas: 11")), MetricAutoscalers.V2)))
        .isNotEqualTo(digest);
  }

  @Test
  void theCpuTargetKeepsItsDefaultBesideMemory() {
    WebService memory =
        ws(
            """
            image: nginx
            ports: [{port: 80}]
            autoscaling: {maxReplicas: 3, targetMemoryUtilizationPercentage: 60}
            """);
    // As in autoscaling/v1, the CPU target is 80% unless set: memory comes on top of it.
    List<Map<String, Object>> metrics =
        MetricAutoscalers.metrics(memory.getSpec().getAutoscaling());
    assertThat(metrics).hasSize(2);
    assertThat(metrics.get(0).toString()).contains("name=cpu").contains("averageUtilization=80");
    assertThat(metrics.get(1).toString()).contains("name=memory").contains("averageUtilization=60");
  }

  private static String digest(GenericKubernetesResource r) {
    return r.getMetadata().getAnnotations().get(MetricAutoscalers.SPEC_DIGEST);
  }
}
