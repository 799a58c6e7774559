package dev.bosun.web.chart;

import static dev.bosun.common.testing.ChartAssertions.assertDefaultSettingsEnv;
import static dev.bosun.common.testing.ChartAssertions.grants;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.NamespaceScopedChartContract;
import dev.bosun.web.WebServiceOperator;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The operator's Helm chart, linted and rendered in-process by helm-java: what it installs, the
 * RBAC it grants (exactly what the operator needs, no wildcards), the hardening of the pod, the
 * environment contract with {@link OperatorSettings}, its values schema, and the CRD copy it ships.
 */
class WebServiceChartTest extends NamespaceScopedChartContract {

  private static final Path CRD_SOURCE =
      Path.of("..", "crds", "web.bosun.dev", "webservices.web.bosun.dev-v1.yml");

  private static final HelmChartFixture CHART = moduleChart();

  /** What the operator does, as "apiGroup|resource|verb"; the chart must grant exactly this. */
  private static final Set<String> OPERATOR_PERMISSIONS =
      permissions(
          grants("web.bosun.dev", "webservices", "get list watch patch update"),
          grants("web.bosun.dev", "webservices/status", "get patch update"),
          grants("apps", "deployments", "get list watch create patch update delete"),
          grants("", "services", "get list watch create patch update delete"),
          grants("", "pods", "list"),
          grants("", "events", "list create patch update"),
          grants(
              "autoscaling",
              "horizontalpodautoscalers",
              "get list watch create patch update delete"),
          grants("networking.k8s.io", "ingresses", "get list watch create patch update delete"),
          grants("policy", "poddisruptionbudgets", "get list watch create patch delete"));

  WebServiceChartTest() {
    super(CHART, WebServiceOperator.NAME, "web.bosun.dev", OPERATOR_PERMISSIONS);
  }

  @Test
  void environmentFollowsTheOperatorsSettingsContract() {
    assertDefaultSettingsEnv(
        only(CHART.render(), Deployment.class), WebServiceOperator.NAME, NAMESPACE);
  }

  @Test
  void notesShowHowToCreateAndWatchAFirstWebService() {
    String notes = CHART.notes();

    assertThat(notes).contains("kubectl get webservices -w");
    // The example is a heredoc the user pastes: it must be a WebService of the shipped CRD with
    // every field the CRD requires.
    GenericKubernetesResource webService =
        HelmChartFixture.serialization()
            .unmarshal(HelmChartFixture.heredoc(notes), GenericKubernetesResource.class);
    CustomResourceDefinition crd =
        HelmChartFixture.read(CRD_SOURCE, CustomResourceDefinition.class);
    CustomResourceDefinitionVersion version = crd.getSpec().getVersions().get(0);
    assertThat(webService.getApiVersion())
        .isEqualTo(crd.getSpec().getGroup() + "/" + version.getName());
    assertThat(webService.getKind()).isEqualTo(crd.getSpec().getNames().getKind());
    assertThat(webService.getMetadata().getName()).isNotBlank();
    Map<?, ?> spec = (Map<?, ?>) webService.getAdditionalProperties().get("spec");
    List<String> required =
        version.getSchema().getOpenAPIV3Schema().getProperties().get("spec").getRequired();
    assertThat(required).isNotEmpty();
    assertThat(spec.keySet()).map(String::valueOf).containsAll(required);
  }
}
