package dev.bosun.web.chart;

import static dev.bosun.common.testing.ChartAssertions.assertDefaultSettingsEnv;
import static dev.bosun.common.testing.ChartAssertions.assertLabelledInNamespace;
import static dev.bosun.common.testing.ChartAssertions.env;
import static dev.bosun.common.testing.ChartAssertions.grants;
import static dev.bosun.common.testing.ChartAssertions.leaderElectionRole;
import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.ChartAssertions.serviceAccountName;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.marcnuri.helm.LintResult;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.OperatorChartContract;
import dev.bosun.web.WebServiceOperator;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator's Helm chart, linted and rendered in-process by helm-java: what it installs, the
 * RBAC it grants (exactly what the operator needs, no wildcards), the hardening of the pod, the
 * environment contract with {@link OperatorSettings}, its values schema, and the CRD copy it ships.
 */
class WebServiceChartTest extends OperatorChartContract {

  private static final Path CRD_SOURCE =
      Path.of("..", "crds", "web.bosun.dev", "webservices.web.bosun.dev-v1.yml");
  private static final String RELEASE = "bosun";
  private static final String NAMESPACE = "bosun-system";
  private static final String FULLNAME = "bosun-bosun-webservice-operator";

  /** Surefire runs in the module directory. */
  private static final HelmChartFixture CHART =
      new HelmChartFixture(Path.of("chart"), RELEASE, NAMESPACE);

  /** What the operator does, as "apiGroup|resource|verb"; the chart must grant exactly this. */
  private static final Set<String> OPERATOR_PERMISSIONS =
      Stream.of(
              grants("web.bosun.dev", "webservices", "get", "list", "watch", "patch", "update"),
              grants("web.bosun.dev", "webservices/status", "get", "patch", "update"),
              grants(
                  "apps",
                  "deployments",
                  "get",
                  "list",
                  "watch",
                  "create",
                  "patch",
                  "update",
                  "delete"),
              grants("", "services", "get", "list", "watch", "create", "patch", "update", "delete"),
              grants("", "pods", "get", "list", "watch"),
              grants("", "events", "create", "patch", "update"),
              grants(
                  "autoscaling",
                  "horizontalpodautoscalers",
                  "get",
                  "list",
                  "watch",
                  "create",
                  "patch",
                  "update",
                  "delete"))
          .flatMap(Set::stream)
          .collect(Collectors.toUnmodifiableSet());

  @Override
  protected HelmChartFixture chart() {
    return CHART;
  }

  @Override
  protected String operatorName() {
    return WebServiceOperator.NAME;
  }

  @Override
  protected String crdGroup() {
    return "web.bosun.dev";
  }

  @Override
  protected Set<String> operatorPermissions() {
    return OPERATOR_PERMISSIONS;
  }

  @Override
  protected List<List<String>> rbacVariants() {
    return List.of(
        List.of("rbac.scope", "namespace", "watchNamespaces[0]", "a", "watchNamespaces[1]", "b"));
  }

  @Test
  void lintFailsWhenTheDefaultValuesBreakTheSchema(@TempDir Path copy) {
    HelmChartFixture broken = CHART.copyTo(copy);
    broken.editValues("\nreplicaCount: 1\n", "\nreplicaCount: -1\n");

    LintResult result = broken.lint();

    assertThat(result.isFailed()).isTrue();
    assertThat(String.join("\n", result.getMessages())).contains("schema").contains("replicaCount");
  }

  @Test
  void defaultsRenderTheOperatorWithClusterWideRbac() {
    List<HasMetadata> objects = CHART.render();

    assertThat(objects)
        .map(o -> o.getKind() + "/" + o.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "ServiceAccount/" + FULLNAME,
            "ClusterRole/" + FULLNAME,
            "ClusterRoleBinding/" + FULLNAME,
            "Role/" + FULLNAME + "-leader-election",
            "RoleBinding/" + FULLNAME + "-leader-election",
            "Service/" + FULLNAME + "-metrics",
            "Deployment/" + FULLNAME);
    assertLabelledInNamespace(objects, "bosun-webservice-operator", RELEASE, NAMESPACE);
  }

  @Test
  void namespaceScopeGrantsRolesInTheWatchedNamespacesOnly() {
    List<HasMetadata> objects =
        CHART.render(
            "rbac.scope", "namespace", "watchNamespaces[0]", "a", "watchNamespaces[1]", "b");

    assertThat(all(objects, ClusterRole.class)).isEmpty();
    assertThat(all(objects, ClusterRoleBinding.class)).isEmpty();
    List<Role> operatorRoles =
        all(objects, Role.class).stream()
            .filter(r -> r.getMetadata().getName().equals(FULLNAME))
            .toList();
    assertThat(operatorRoles)
        .extracting(r -> r.getMetadata().getNamespace())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(operatorRoles)
        .allSatisfy(r -> assertThat(permissions(r.getRules())).isEqualTo(OPERATOR_PERMISSIONS));
    List<RoleBinding> operatorBindings =
        all(objects, RoleBinding.class).stream()
            .filter(b -> b.getRoleRef().getName().equals(FULLNAME))
            .toList();
    assertThat(operatorBindings)
        .extracting(b -> b.getMetadata().getNamespace())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(operatorBindings)
        .allSatisfy(
            b -> {
              assertThat(b.getRoleRef().getKind()).isEqualTo("Role");
              assertThat(b.getSubjects())
                  .extracting(Subject::getName, Subject::getNamespace)
                  .containsExactly(tuple(FULLNAME, NAMESPACE));
            });
    // The Lease stays in the release namespace whatever the operator watches.
    assertThat(leaderElectionRole(objects, FULLNAME).getMetadata().getNamespace())
        .isEqualTo(NAMESPACE);
    assertThat(
            env(only(objects, Deployment.class)).get(OperatorSettings.WATCH_NAMESPACES).getValue())
        .isEqualTo("a,b");
  }

  @Test
  void environmentFollowsTheOperatorsSettingsContract() {
    assertDefaultSettingsEnv(
        only(CHART.render(), Deployment.class), WebServiceOperator.NAME, NAMESPACE);
  }

  @Test
  void valuesReachTheDeployment() {
    Deployment deployment =
        only(
            CHART.render(
                "image.tag", "1.2.3",
                "logLevel", "DEBUG",
                "metrics.port", "9090",
                "podAnnotations.team", "web",
                "replicaCount", "2"),
            Deployment.class);
    Container container = operatorContainer(deployment);

    assertThat(container.getImage()).isEqualTo("bosun/webservice-operator:1.2.3");
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(env(deployment).get("BOSUN_LOG_LEVEL").getValue()).isEqualTo("DEBUG");
    assertThat(env(deployment).get(OperatorSettings.HTTP_PORT).getValue()).isEqualTo("9090");
    assertThat(container.getPorts().get(0).getContainerPort()).isEqualTo(9090);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("team", "web")
        .containsEntry("prometheus.io/port", "9090");
  }

  @Test
  void defaultImageTagIsTheAppVersion() {
    Map<?, ?> chart = CHART.chartYaml();

    assertThat(operatorContainer(only(CHART.render(), Deployment.class)).getImage())
        .isEqualTo("bosun/webservice-operator:" + chart.get("appVersion"));
  }

  @Test
  void withoutLeaderElectionTheOldPodStopsFirstAndNoLeaseIsGranted() {
    List<HasMetadata> objects = CHART.render("leaderElection.enabled", "false");
    Deployment deployment = only(objects, Deployment.class);

    assertThat(env(deployment).get(OperatorSettings.LEADER_ELECTION).getValue()).isEqualTo("false");
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    assertThat(all(objects, Role.class)).isEmpty();
    assertThat(all(objects, RoleBinding.class)).isEmpty();
    assertThat(all(objects, ClusterRole.class)).hasSize(1);
  }

  @Test
  void rbacAndServiceAccountCanBeLeftToTheCluster() {
    List<HasMetadata> objects =
        CHART.render(
            "rbac.create", "false", "serviceAccount.create", "false", "serviceAccount.name", "ops");

    assertThat(objects)
        .map(HasMetadata::getKind)
        .containsExactlyInAnyOrder("Service", "Deployment");
    assertThat(serviceAccountName(only(objects, Deployment.class))).isEqualTo("ops");
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

  static Stream<Arguments> valuesTheSchemaRejects() {
    return Stream.of(
        Arguments.of(List.of("replicaCount", "-1"), "/replicaCount"),
        Arguments.of(List.of("rbac.scope", "everything"), "/rbac/scope"),
        Arguments.of(List.of("rbac.scope", "namespace"), "/watchNamespaces"),
        Arguments.of(
            List.of("leaderElection.enabled", "false", "replicaCount", "2"), "/replicaCount"),
        Arguments.of(List.of("image.pullPolicy", "Sometimes"), "/image/pullPolicy"),
        Arguments.of(List.of("logLevel", "VERBOSE"), "/logLevel"),
        Arguments.of(List.of("metrics.port", "80"), "/metrics/port"),
        Arguments.of(List.of("watchNamespaces[0]", "Not_A_Namespace"), "/watchNamespaces/0"),
        Arguments.of(List.of("resources.requests.cpu", "lots"), "/resources/requests/cpu"),
        Arguments.of(List.of("replicas", "3"), "'replicas' not allowed"),
        Arguments.of(List.of("rbac.create", "yes please"), "/rbac/create"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valuesTheSchemaRejects")
  void schemaRejectsInvalidValues(List<String> keysAndValues, String where) {
    CHART.assertSchemaRejects(keysAndValues, where);
  }
}
