package dev.bosun.e2e;

import static dev.bosun.common.testing.HelmChartFixture.all;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.platform.PlatformChart;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The umbrella chart, linted and rendered in-process by helm-java. */
class PlatformChartTest {

  private final HelmChartFixture chart = PlatformChart.fixture("bosun", "bosun-system");

  private static Map<String, Container> operatorContainers(List<HasMetadata> objects) {
    return all(objects, Deployment.class).stream()
        .collect(
            Collectors.toMap(
                d -> d.getMetadata().getLabels().get("app.kubernetes.io/name"),
                d -> d.getSpec().getTemplate().getSpec().getContainers().get(0)));
  }

  private static String env(Container c, String name) {
    return c.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(c.getImage() + " has no env " + name))
        .getValue();
  }

  @Test
  void lintsClean() {
    chart.assertLintsClean();
  }

  @Test
  void installsTheFourOperatorsByDefault() {
    assertThat(operatorContainers(chart.render()))
        .containsOnlyKeys(PlatformChart.OPERATORS.stream().map(PlatformChart::chartName).toList());
  }

  @ParameterizedTest
  @ValueSource(strings = {"webservice", "configsync", "etcd", "mysql"})
  void eachOperatorCanBeLeftOut(String operator) {
    List<HasMetadata> objects = chart.render(operator + ".enabled", "false");

    assertThat(objects)
        .noneMatch(
            o ->
                PlatformChart.chartName(operator)
                    .equals(o.getMetadata().getLabels().get("app.kubernetes.io/name")));
    assertThat(operatorContainers(objects)).hasSize(3);
  }

  @Test
  void sharedImageRegistryAndTagReachEveryOperator() {
    Map<String, Container> containers =
        operatorContainers(
            chart.render("global.image.registry", "ghcr.io/acme", "global.image.tag", "1.2.3"));

    assertThat(containers)
        .allSatisfy(
            (name, c) ->
                assertThat(c.getImage())
                    .isEqualTo(
                        "ghcr.io/acme/bosun/" + name.substring("bosun-".length()) + ":1.2.3"));
  }

  @Test
  void anOperatorsOwnTagWinsOverTheSharedOne() {
    Map<String, Container> containers =
        operatorContainers(
            chart.render("global.image.tag", "1.2.3", "etcd.image.tag", "1.2.4-fix"));

    assertThat(containers.get("bosun-etcd-operator").getImage()).endsWith(":1.2.4-fix");
    assertThat(containers.get("bosun-mysql-operator").getImage()).endsWith(":1.2.3");
  }

  @Test
  void sharedWatchedNamespacesReachTheNamespacedOperators() {
    Map<String, Container> containers =
        operatorContainers(
            chart.render(
                "global.watchNamespaces[0]", "team-a", "global.watchNamespaces[1]", "team-b"));

    for (String operator : PlatformChart.OPERATORS) {
      assertThat(env(containers.get(PlatformChart.chartName(operator)), "BOSUN_WATCH_NAMESPACES"))
          .as(operator)
          .isEqualTo("team-a,team-b");
    }
  }

  @Test
  void sharedWatchedNamespacesConfineEveryOperatorsRbacToThem() {
    List<HasMetadata> objects = chart.render("global.watchNamespaces[0]", "team-a");

    // Besides each operator's webhook ClusterRole (its own configuration, by name), only
    // configsync keeps a ClusterRole, and it reads Namespace objects and nothing else.
    assertThat(all(objects, ClusterRole.class))
        .filteredOn(r -> r.getMetadata().getName().endsWith("-webhook"))
        .hasSize(PlatformChart.OPERATORS.size())
        .allSatisfy(
            r ->
                assertThat(r.getRules())
                    .singleElement()
                    .satisfies(
                        rule -> {
                          assertThat(rule.getResources())
                              .containsExactly("validatingwebhookconfigurations");
                          assertThat(rule.getResourceNames()).hasSize(1);
                        }));
    assertThat(all(objects, ClusterRole.class))
        .filteredOn(r -> !r.getMetadata().getName().endsWith("-webhook"))
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getRules())
                    .allSatisfy(
                        rule -> assertThat(rule.getResources()).containsOnly("namespaces")));
    Map<String, List<String>> rolesInTeamA =
        all(objects, Role.class).stream()
            .filter(r -> "team-a".equals(r.getMetadata().getNamespace()))
            .collect(
                Collectors.groupingBy(
                    r -> r.getMetadata().getLabels().get("app.kubernetes.io/name"),
                    Collectors.mapping(r -> r.getMetadata().getName(), Collectors.toList())));
    assertThat(rolesInTeamA)
        .containsOnlyKeys(PlatformChart.OPERATORS.stream().map(PlatformChart::chartName).toList());
  }

  @Test
  void sharedResourcesReachEveryOperator() {
    Map<String, Container> containers =
        operatorContainers(
            chart.render(
                "global.resources.requests.cpu", "50m",
                "global.resources.limits.memory", "300Mi"));

    assertThat(containers)
        .allSatisfy(
            (name, c) -> {
              assertThat(c.getResources().getRequests().get("cpu").toString()).isEqualTo("50m");
              assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo("300Mi");
            });
  }

  @Test
  void shipsTheCrdsOfEveryOperatorFromItsSubchart() throws IOException {
    Path crds = LocalControlPlane.repoRoot().resolve("crds");
    List<Path> groups;
    try (Stream<Path> dirs = Files.list(crds)) {
      groups = dirs.filter(d -> d.getFileName().toString().endsWith(".bosun.dev")).toList();
    }
    assertThat(groups).hasSize(4);
    for (Path group : groups) {
      String operator =
          switch (group.getFileName().toString()) {
            case "web.bosun.dev" -> "webservice";
            case "config.bosun.dev" -> "configsync";
            case "etcd.bosun.dev" -> "etcd";
            case "mysql.bosun.dev" -> "mysql";
            default -> throw new AssertionError("an API group without an operator: " + group);
          };
      Path shipped =
          chart.dir().resolve("charts/" + PlatformChart.chartName(operator) + "/files/crds");
      try (Stream<Path> files = Files.list(group)) {
        for (Path crd : files.filter(f -> f.toString().endsWith("-v1.yml")).toList()) {
          assertThat(shipped.resolve(crd.getFileName())).hasSameTextualContentAs(crd);
        }
      }
    }
  }

  @Test
  void schemaRejectsWhatItDoesNotKnow() {
    chart.assertSchemaRejects(List.of("replicas", "3"), "replicas");
    chart.assertSchemaRejects(List.of("global.image.tag", "not a tag"), "tag");
    chart.assertSchemaRejects(
        List.of("global.watchNamespaces[0]", "Not_A_Namespace"), "watchNamespaces/0");
    chart.assertSchemaRejects(List.of("global.colour", "blue"), "colour");
  }

  @Test
  void notesSayWhatIsInstalledAndHowToUpgradeCrds() {
    String notes = chart.notes("etcd.enabled", "false");

    assertThat(notes)
        .contains("kubectl get webservices -A")
        .contains("kubectl get configmapsyncs,secretsyncs,configmonitors -A")
        .contains("kubectl get mysqlclusters,mysqlbackups -A")
        .doesNotContain("etcdclusters")
        .contains("also upgrades the CRDs")
        .contains("crds.install=false");
  }

  @Test
  void eachOperatorMayRenewItsOwnLeaseUnderItsAlias() {
    // The subcharts run under aliases (webservice, etcd, ...), which change .Chart.Name; the Lease
    // the operator takes is fixed by the operator itself.
    Map<String, List<String>> leases =
        all(chart.render(), Role.class).stream()
            .filter(r -> r.getMetadata().getName().endsWith("-leader-election"))
            .collect(
                java.util.stream.Collectors.toMap(
                    r -> r.getMetadata().getLabels().get("app.kubernetes.io/name"),
                    r ->
                        r.getRules().stream()
                            .flatMap(rule -> rule.getResourceNames().stream())
                            .toList()));

    assertThat(leases).hasSize(PlatformChart.OPERATORS.size());
    leases.forEach(
        (operator, names) -> assertThat(names).as(operator).containsExactly(operator + "-leader"));
  }

  @Test
  void namespaceScopedRbacRendersTheOperatorsRulesUnderItsAlias() {
    List<Role> roles =
        all(
                chart.render(
                    "mysql.watchNamespaces[0]",
                    "team-a",
                    "webservice.watchNamespaces[0]",
                    "team-a"),
                Role.class)
            .stream()
            .filter(r -> "team-a".equals(r.getMetadata().getNamespace()))
            .toList();

    assertThat(roles)
        .extracting(r -> r.getMetadata().getLabels().get("app.kubernetes.io/name"))
        .containsExactlyInAnyOrder("bosun-mysql-operator", "bosun-webservice-operator");
    assertThat(roles)
        .allSatisfy(
            r ->
                assertThat(r.getRules())
                    .anySatisfy(rule -> assertThat(rule.getResources()).contains("pods")));
  }
}
