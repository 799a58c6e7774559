package dev.bosun.e2e;

import static dev.bosun.common.testing.ChartAssertions.permissions;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.platform.LocalWorkloads;
import dev.bosun.platform.PlatformChart;
import dev.bosun.platform.PlatformRelease;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each operator chart installed with {@code watchNamespaces: [team-a]}: the API server refuses its
 * ServiceAccount every read and write outside team-a (Secrets, ConfigMaps, Pods, the operator's own
 * kinds), allows what the chart grants inside it, and the operator starts under that RBAC, so it
 * watches nothing else. The default (cluster-wide) release of the same JVM keeps its rights in
 * every namespace.
 */
@ExtendWith(E2eClusterExtension.class)
class NamespacedInstallIT {

  private static final String RELEASE = "confined";
  private static final String RELEASE_NAMESPACE = "rbac-operators";
  private static final String TEAM_A = "rbac-team-a";
  private static final String TEAM_B = "rbac-team-b";
  private static final String EVERY_NAMESPACE = "";
  private static final Set<String> RBAC_KINDS =
      Set.of("ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding");

  private static PlatformRelease release;
  private static KubernetesClient admin;
  private static final Map<String, List<HasMetadata>> rendered = new LinkedHashMap<>();

  static List<String> operators() {
    return PlatformChart.OPERATORS;
  }

  @BeforeAll
  static void installTheRbacOfEveryChartConfinedToTeamA() {
    // The shared release installs the CRDs (cluster-wide, as a default install does).
    release = PlatformRelease.shared();
    admin = release.admin();
    for (String namespace : List.of(RELEASE_NAMESPACE, TEAM_A, TEAM_B)) {
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .serverSideApply();
    }
    for (String operator : operators()) {
      List<HasMetadata> objects =
          chart(operator).render("watchNamespaces[0]", TEAM_A, "crds.install", "false");
      rendered.put(operator, objects);
      objects.stream()
          .filter(o -> RBAC_KINDS.contains(o.getKind()))
          .forEach(o -> admin.resource(o).serverSideApply());
    }
  }

  @AfterAll
  static void removeTheClusterWideObjects() {
    rendered.values().stream()
        .flatMap(List::stream)
        .filter(o -> o instanceof ClusterRole || o instanceof ClusterRoleBinding)
        .forEach(o -> admin.resource(o).delete());
  }

  private static HelmChartFixture chart(String operator) {
    return new HelmChartFixture(
        LocalControlPlane.repoRoot().resolve(operator + "-operator").resolve("chart"),
        RELEASE,
        RELEASE_NAMESPACE);
  }

  private static ServiceAccountAccess confined(String operator) {
    ServiceAccount account = only(rendered.get(operator), ServiceAccount.class);
    return new ServiceAccountAccess(admin, RELEASE_NAMESPACE, account.getMetadata().getName());
  }

  /** What the chart grants in team-a, as "apiGroup|resource|verb". */
  private static Set<String> grantedInTeamA(String operator) {
    List<Role> roles =
        all(rendered.get(operator), Role.class).stream()
            .filter(r -> TEAM_A.equals(r.getMetadata().getNamespace()))
            .toList();
    assertThat(roles).as("the Roles of %s in %s", operator, TEAM_A).hasSize(1);
    return permissions(roles.get(0).getRules());
  }

  @ParameterizedTest
  @MethodSource("operators")
  void everyRightTheChartGrantsHoldsInTheWatchedNamespaceOnly(String operator) {
    ServiceAccountAccess account = confined(operator);
    Set<String> granted = grantedInTeamA(operator);

    assertThat(granted).isNotEmpty();
    for (String permission : granted) {
      assertThat(account.may(permission, TEAM_A)).as("%s in %s", permission, TEAM_A).isTrue();
      assertThat(account.may(permission, TEAM_B)).as("%s in %s", permission, TEAM_B).isFalse();
      assertThat(account.may(permission, EVERY_NAMESPACE))
          .as("%s in every namespace", permission)
          .isFalse();
    }
    // No chart needs Secrets cluster-wide, nor outside the watched namespace.
    assertThat(account.may("|secrets|list", EVERY_NAMESPACE)).isFalse();
    assertThat(account.may("|secrets|get", TEAM_B)).isFalse();
  }

  @ParameterizedTest
  @MethodSource("operators")
  void theApiServerRefusesReadsAndWritesOutsideTheWatchedNamespace(String operator) {
    ResourceDefinitionContext ownKind = ownKind(operator);
    try (KubernetesClient client = confined(operator).client()) {
      assertForbidden(() -> client.secrets().inNamespace(TEAM_B).list());
      // The release namespace holds the operator's Lease (and may hold its own Secrets): nothing
      // of what it reconciles.
      for (String where : List.of(TEAM_B, RELEASE_NAMESPACE)) {
        assertForbidden(() -> client.configMaps().inNamespace(where).list());
        assertForbidden(() -> client.pods().inNamespace(where).list());
        assertForbidden(() -> client.genericKubernetesResources(ownKind).inNamespace(where).list());
        assertForbidden(
            () ->
                client
                    .configMaps()
                    .inNamespace(where)
                    .resource(
                        new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("written-by-" + operator)
                            .endMetadata()
                            .build())
                    .create());
      }
      assertForbidden(() -> client.secrets().inAnyNamespace().list());
      assertForbidden(() -> client.pods().inAnyNamespace().list());
      assertForbidden(() -> client.genericKubernetesResources(ownKind).inAnyNamespace().list());
      // Inside team-a what the operator watches is readable.
      assertThat(client.genericKubernetesResources(ownKind).inNamespace(TEAM_A).list().getItems())
          .isEmpty();
      assertThat(client.pods().inNamespace(TEAM_A).list()).isNotNull();
    }
  }

  @ParameterizedTest
  @MethodSource("operators")
  void onlyConfigSyncReadsNamespaceObjectsClusterWideAndNothingElse(String operator) {
    ServiceAccountAccess account = confined(operator);
    boolean configsync = operator.equals("configsync");

    assertThat(account.may("|namespaces|list", EVERY_NAMESPACE)).isEqualTo(configsync);
    assertThat(account.may("|namespaces|watch", EVERY_NAMESPACE)).isEqualTo(configsync);
    assertThat(account.may("|namespaces|update", EVERY_NAMESPACE)).isFalse();
    // Besides, only the webhook's own configuration (cluster-scoped), by name: no object of a
    // namespace.
    assertThat(all(rendered.get(operator), ClusterRole.class))
        .filteredOn(r -> r.getMetadata().getName().endsWith("-webhook"))
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getRules())
                    .allSatisfy(
                        rule -> {
                          assertThat(rule.getResources())
                              .containsExactly("validatingwebhookconfigurations");
                          assertThat(rule.getResourceNames()).hasSize(1);
                        }));
    assertThat(all(rendered.get(operator), ClusterRole.class))
        .filteredOn(r -> !r.getMetadata().getName().endsWith("-webhook"))
        .allSatisfy(
            r ->
                assertThat(permissions(r.getRules()))
                    .containsExactlyInAnyOrder(
                        "|namespaces|get", "|namespaces|list", "|namespaces|watch"));
  }

  @ParameterizedTest
  @MethodSource("operators")
  void theOperatorStartsUnderItsNamespacedRbac(String operator) {
    Map<String, String> env =
        new LinkedHashMap<>(
            resolvedEnv(only(rendered.get(operator), Deployment.class), RELEASE_NAMESPACE));
    assertThat(env).containsEntry(OperatorSettings.WATCH_NAMESPACES, TEAM_A);
    env.put(OperatorSettings.HTTP_PORT, "-1");
    // The webhook on a free port of this JVM: it keeps its certificate in the release namespace
    // under the chart's Role there (its configuration is not installed here).
    env.put(WebhookSettings.PORT, "0");
    // Without leader election start() returns only once every informer has listed: a list or
    // watch outside team-a would fail it with the API server's 403.
    env.put(OperatorSettings.LEADER_ELECTION, "false");
    try (KubernetesClient client = confined(operator).client();
        OperatorRuntime runtime = create(operator, env, client)) {
      runtime.start();
      assertThat(runtime.operator().getRuntimeInfo().allEventSourcesAreHealthy()).isTrue();
    }
  }

  @ParameterizedTest
  @MethodSource("operators")
  void theDefaultReleaseKeepsItsRightsInEveryNamespace(String operator) {
    ServiceAccountAccess account =
        new ServiceAccountAccess(
            admin, PlatformRelease.NAMESPACE, release.serviceAccount(operator));

    for (String permission : grantedInTeamA(operator)) {
      assertThat(account.may(permission, TEAM_B)).as("%s in %s", permission, TEAM_B).isTrue();
    }
  }

  private static OperatorRuntime create(
      String operator, Map<String, String> env, KubernetesClient client) {
    return switch (operator) {
      case "webservice" -> dev.bosun.web.Main.create(env, client);
      case "configsync" -> dev.bosun.config.Main.create(env, client);
      case "etcd" ->
          dev.bosun.etcd.Main.create(
              OperatorSettings.fromMap(dev.bosun.etcd.EtcdOperator.NAME, env),
              client,
              LocalWorkloads.ETCD_ADDRESSING,
              Optional.empty(),
              null);
      case "mysql" ->
          dev.bosun.mysql.Main.create(
              OperatorSettings.fromMap(dev.bosun.mysql.MySQLOperator.NAME, env),
              client,
              null,
              dev.bosun.mysql.Main.pollInterval(env),
              null);
      default -> throw new IllegalArgumentException("no operator " + operator);
    };
  }

  /** The operator's main kind (its first CRD), as the chart's Role names it. */
  private static ResourceDefinitionContext ownKind(String operator) {
    String permission =
        grantedInTeamA(operator).stream()
            .filter(p -> p.endsWith("|watch") && p.contains(".bosun.dev|"))
            .sorted()
            .findFirst()
            .orElseThrow();
    String[] parts = permission.split("\\|");
    return new ResourceDefinitionContext.Builder()
        .withGroup(parts[0])
        .withVersion("v1alpha1")
        .withPlural(parts[1])
        .withNamespaced(true)
        .build();
  }

  private static void assertForbidden(Runnable call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
  }
}
