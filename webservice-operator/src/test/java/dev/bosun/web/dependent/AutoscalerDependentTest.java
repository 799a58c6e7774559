package dev.bosun.web.dependent;

import static dev.bosun.web.dependent.DeploymentDependentTest.webService;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AutoscalerDependentTest {

  private static final String PORTS =
      """
      image: nginx
      ports: [{name: http, port: 80}]
      """;

  @Test
  void autoscalerOfTheDeployment() {
    HorizontalPodAutoscaler hpa =
        AutoscalerDependent.desiredAutoscaler(
            webService(
                PORTS
                    + "autoscaling: {minReplicas: 2, maxReplicas: 10,"
                    + " targetCPUUtilizationPercentage: 65}\n",
                1));

    assertThat(hpa.getMetadata().getName()).isEqualTo("shop");
    assertThat(hpa.getMetadata().getNamespace()).isEqualTo("prod");
    assertThat(hpa.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "app.kubernetes.io/name", "webservice",
                "app.kubernetes.io/instance", "shop",
                "app.kubernetes.io/component", "server",
                "app.kubernetes.io/managed-by", "bosun-webservice-operator",
                "app.kubernetes.io/part-of", "bosun"));
    assertThat(hpa.getSpec().getScaleTargetRef().getApiVersion()).isEqualTo("apps/v1");
    assertThat(hpa.getSpec().getScaleTargetRef().getKind()).isEqualTo("Deployment");
    assertThat(hpa.getSpec().getScaleTargetRef().getName()).isEqualTo("shop");
    assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(2);
    assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(10);
    assertThat(hpa.getSpec().getTargetCPUUtilizationPercentage()).isEqualTo(65);
  }

  @Test
  void schemaDefaultsForMinimumAndTarget() {
    HorizontalPodAutoscaler hpa =
        AutoscalerDependent.desiredAutoscaler(
            webService(PORTS + "autoscaling: {maxReplicas: 4}\n", 1));

    assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(1);
    assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(4);
    assertThat(hpa.getSpec().getTargetCPUUtilizationPercentage()).isEqualTo(80);
  }

  @Test
  void withoutAutoscalingOnlyTheIdentity() {
    HorizontalPodAutoscaler hpa = AutoscalerDependent.desiredAutoscaler(webService(PORTS, 1));

    assertThat(hpa.getMetadata().getName()).isEqualTo("shop");
    assertThat(hpa.getMetadata().getNamespace()).isEqualTo("prod");
    assertThat(hpa.getSpec()).isNull();
  }
}
