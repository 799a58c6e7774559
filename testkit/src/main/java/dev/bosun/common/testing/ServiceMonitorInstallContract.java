package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An operator chart's ServiceMonitor installed by helm-java onto the real API server, whose
 * discovery Helm reads: refused with the chart's message while the cluster does not serve the
 * monitoring.coreos.com/v1 ServiceMonitor API, created once a CRD serves it. The chart tests prove
 * the rendering; this proves the capability check against a real server. Each operator module runs
 * it for its chart.
 */
@ExtendWith(ControlPlaneExtension.class)
public abstract class ServiceMonitorInstallContract {

  private static final String CRD = "servicemonitors.monitoring.coreos.com";

  private final Path chart;
  private final String operatorName;

  /** The chart of operator {@code operatorName} in the module's {@code chart} directory. */
  protected ServiceMonitorInstallContract(String operatorName) {
    this.chart = Path.of("chart");
    this.operatorName = operatorName;
  }

  @Test
  void theReleaseCreatesAServiceMonitorOnlyWhereTheApiIsServed() {
    LocalControlPlane plane = ControlPlaneExtension.controlPlane();
    KubernetesClient admin = plane.adminClient();
    String release = "sm-" + UUID.randomUUID().toString().substring(0, 6);
    String namespace = release;
    admin.apiextensions().v1().customResourceDefinitions().withName(CRD).delete();
    await("no ServiceMonitor API")
        .atMost(Duration.ofSeconds(30))
        .until(() -> admin.getApiResources("monitoring.coreos.com/v1") == null);

    assertThatThrownBy(() -> install(plane, release, namespace).call())
        .hasMessageContaining("ServiceMonitor API (monitoring.coreos.com/v1)");

    admin.resource(serviceMonitorCrd()).serverSideApply();
    await("the ServiceMonitor API in discovery")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin.getApiResources("monitoring.coreos.com/v1") != null
                    && admin.getApiResources("monitoring.coreos.com/v1").getResources().stream()
                        .anyMatch(r -> r.getKind().equals("ServiceMonitor")));
    try {
      install(plane, release, namespace).call();
      String fullname = release + "-" + operatorName;
      GenericKubernetesResource monitor =
          admin
              .genericKubernetesResources("monitoring.coreos.com/v1", "ServiceMonitor")
              .inNamespace(namespace)
              .withName(fullname)
              .get();
      Service metrics =
          admin.services().inNamespace(namespace).withName(fullname + "-metrics").get();
      Map<String, String> selector = monitor.get("spec", "selector", "matchLabels");
      List<Map<String, Object>> endpoints = monitor.get("spec", "endpoints");

      assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "prometheus");
      assertThat(metrics.getMetadata().getLabels()).containsAllEntriesOf(selector);
      assertThat(endpoints)
          .singleElement()
          .satisfies(e -> assertThat(e).containsEntry("port", ChartAssertions.METRICS_PORT));
      assertThat(metrics.getSpec().getPorts())
          .extracting(p -> p.getName())
          .contains(ChartAssertions.METRICS_PORT);
    } finally {
      Helm.uninstall(release)
          .withNamespace(namespace)
          .withKubeConfig(plane.kubeconfig())
          .ignoreNotFound()
          .call();
      admin.namespaces().withName(namespace).delete();
      admin.apiextensions().v1().customResourceDefinitions().withName(CRD).delete();
    }
  }

  private InstallCommand install(LocalControlPlane plane, String release, String namespace) {
    return new Helm(chart)
        .install()
        .withName(release)
        .withNamespace(namespace)
        .createNamespace()
        .withKubeConfig(plane.kubeconfig())
        // The module's other ITs apply the CRDs themselves; Helm would refuse to adopt them.
        .set("crds.install", "false")
        .set("serviceMonitor.enabled", "true")
        .set("serviceMonitor.labels.release", "prometheus");
  }

  /** The Prometheus Operator's CRD, reduced to what discovery and storage need. */
  private static CustomResourceDefinition serviceMonitorCrd() {
    String yaml =
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: servicemonitors.monitoring.coreos.com}
        spec:
          group: monitoring.coreos.com
          scope: Namespaced
          names:
            kind: ServiceMonitor
            listKind: ServiceMonitorList
            plural: servicemonitors
            singular: servicemonitor
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
        """;
    return HelmChartFixture.serialization().unmarshal(yaml, CustomResourceDefinition.class);
  }
}
