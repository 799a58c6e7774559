package dev.bosun.common.testing;

import static dev.bosun.common.testing.ChartAssertions.assertClusterRoleGrantsExactly;
import static dev.bosun.common.testing.ChartAssertions.assertHardened;
import static dev.bosun.common.testing.ChartAssertions.assertLabelledInNamespace;
import static dev.bosun.common.testing.ChartAssertions.assertLeaderElectionRoleLimitedToLease;
import static dev.bosun.common.testing.ChartAssertions.assertMetricsAndProbesOn;
import static dev.bosun.common.testing.ChartAssertions.assertNoWildcards;
import static dev.bosun.common.testing.ChartAssertions.assertResources;
import static dev.bosun.common.testing.ChartAssertions.env;
import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.ChartAssertions.serviceAccountName;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.LintResult;
import dev.bosun.common.runtime.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every Bosun operator chart must do, whatever the operator: render the same set of objects,
 * lint clean, grant exactly what the operator needs without wildcards, take its Lease only, run
 * hardened with the standard resources, probe and expose metrics on the operator's port, pass its
 * values on, run without leader election or without its own RBAC when asked, and template its API
 * group's CRDs (copied byte for byte from crds/) so that upgrades apply them. Each operator's chart
 * test extends it (or {@link NamespaceScopedChartContract}) and adds what is particular to it.
 */
public abstract class OperatorChartContract {

  /** The release name every operator chart test renders. */
  protected static final String RELEASE = "bosun";

  /** The namespace every operator chart test renders into. */
  protected static final String NAMESPACE = "bosun-system";

  /** A Kubernetes version whose API server knows CRD validation rules (CEL). */
  private static final String SERVES_CEL = "v1.25.0";

  private static final String SERVICE_MONITOR = "ServiceMonitor";
  private static final String SERVICE_MONITOR_API = "monitoring.coreos.com/v1/ServiceMonitor";

  private final HelmChartFixture chart;
  private final String operatorName;
  private final String crdGroup;
  private final Set<String> operatorPermissions;

  /**
   * @param chart the chart under test, rendered as one release
   * @param operatorName the operator's name ({@code bosun-<name>-operator}): labels, Lease
   * @param crdGroup the API group whose CRDs the chart ships (a folder of {@code crds/})
   * @param operatorPermissions what the operator does, as "apiGroup|resource|verb": the chart must
   *     grant exactly this
   */
  protected OperatorChartContract(
      HelmChartFixture chart,
      String operatorName,
      String crdGroup,
      Set<String> operatorPermissions) {
    this.chart = chart;
    this.operatorName = operatorName;
    this.crdGroup = crdGroup;
    this.operatorPermissions = operatorPermissions;
  }

  /** The chart of the module under test (Surefire runs in the module directory). */
  protected static HelmChartFixture moduleChart() {
    return new HelmChartFixture(Path.of("chart"), RELEASE, NAMESPACE);
  }

  /** The chart under test. */
  protected HelmChartFixture chart() {
    return chart;
  }

  /**
   * The operator's own objects with the given --set pairs: rendered with the admission webhook off,
   * whose Service, configuration, RBAC and container port {@link WebhookChartContract} checks.
   */
  protected List<HasMetadata> renderOperator(String... keysAndValues) {
    return chart.render(withoutWebhook(keysAndValues));
  }

  private static String[] withoutWebhook(String... keysAndValues) {
    List<String> values = new ArrayList<>(List.of("webhook.enabled", "false"));
    values.addAll(List.of(keysAndValues));
    return values.toArray(String[]::new);
  }

  /** The operator's name. */
  protected String operatorName() {
    return operatorName;
  }

  /** The API group of the CRDs the chart ships. */
  protected String crdGroup() {
    return crdGroup;
  }

  /** What the chart must grant, exactly. */
  protected Set<String> operatorPermissions() {
    return operatorPermissions;
  }

  /** Further --set pairs whose rendering must be wildcard-free too (e.g. namespace-scoped RBAC). */
  protected List<List<String>> rbacVariants() {
    return List.of();
  }

  /** The release's full name, the name of the chart's objects. */
  protected String fullname() {
    return chart().release() + "-" + operatorName();
  }

  /** The image repository the chart defaults to ({@code bosun/<name>-operator}). */
  /**
   * What the chart renders by default beyond the shared objects, as "Kind/name" (the MySQL chart's
   * restore Service and certificate Role); RBAC kinds among them go with rbac.create.
   */
  protected List<String> alsoRenderedByDefault() {
    return List.of();
  }

  protected String imageRepository() {
    return operatorName().replaceFirst("^bosun-", "bosun/");
  }

  /**
   * Values of the library chart's shared settings that every operator chart's schema refuses, with
   * the path its refusal names.
   */
  static Stream<Arguments> sharedValuesTheSchemaRejects() {
    return Stream.of(
        Arguments.of(List.of("replicaCount", "-1"), "/replicaCount"),
        Arguments.of(
            List.of("leaderElection.enabled", "false", "replicaCount", "2"), "/replicaCount"),
        Arguments.of(List.of("image.pullPolicy", "Sometimes"), "/image/pullPolicy"),
        Arguments.of(List.of("logLevel", "VERBOSE"), "/logLevel"),
        Arguments.of(List.of("metrics.port", "80"), "/metrics/port"),
        Arguments.of(List.of("resources.requests.cpu", "lots"), "/resources/requests/cpu"),
        Arguments.of(List.of("replicas", "3"), "'replicas' not allowed"),
        Arguments.of(List.of("rbac.create", "yes please"), "/rbac/create"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sharedValuesTheSchemaRejects")
  void schemaRejectsInvalidSharedValues(List<String> keysAndValues, String where) {
    chart.assertSchemaRejects(keysAndValues, where);
  }

  @Test
  void defaultsRenderTheOperatorWithClusterWideRbac() {
    List<HasMetadata> objects = chart().render();
    List<String> expected =
        new ArrayList<>(
            List.of(
                "ServiceAccount/" + fullname(),
                "ClusterRole/" + fullname(),
                "ClusterRoleBinding/" + fullname(),
                "Role/" + fullname() + "-leader-election",
                "RoleBinding/" + fullname() + "-leader-election",
                "Service/" + fullname() + "-metrics",
                "Deployment/" + fullname(),
                // The admission webhook, on by default (WebhookChartContract checks what they do).
                "Service/" + fullname() + "-webhook",
                "ValidatingWebhookConfiguration/" + chart().namespace() + "-" + fullname(),
                "ClusterRole/" + fullname() + "-webhook",
                "ClusterRoleBinding/" + fullname() + "-webhook",
                "Role/" + fullname() + "-tls",
                "RoleBinding/" + fullname() + "-tls"));
    // One certificate Role however many HTTPS endpoints share it.
    alsoRenderedByDefault().stream().filter(o -> !expected.contains(o)).forEach(expected::add);
    shippedCrds()
        .forEach(crd -> expected.add("CustomResourceDefinition/" + crd.getMetadata().getName()));

    assertThat(objects)
        .map(o -> o.getKind() + "/" + o.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(expected);
    assertLabelledInNamespace(objects, operatorName(), chart().release(), chart().namespace());
  }

  /** The CRD files the chart templates, parsed. */
  private List<CustomResourceDefinition> shippedCrds() {
    return chart().shippedCrds().stream()
        .map(
            file ->
                HelmChartFixture.read(
                    chart().crdFiles().resolve(file), CustomResourceDefinition.class))
        .toList();
  }

  @Test
  void crdsAreTemplatedSoThatUpgradesApplyThemAndKeptOnUninstall() {
    // helm-java renders for Kubernetes 1.20 unless told otherwise; a server with CEL keeps all.
    List<CustomResourceDefinition> rendered =
        all(chart().renderFor(SERVES_CEL), CustomResourceDefinition.class);
    List<CustomResourceDefinition> shipped = shippedCrds();

    assertThat(shipped).isNotEmpty();
    assertThat(rendered)
        .extracting(c -> c.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(
            shipped.stream().map(c -> c.getMetadata().getName()).toList());
    for (CustomResourceDefinition crd : shipped) {
      CustomResourceDefinition copy =
          rendered.stream()
              .filter(r -> r.getMetadata().getName().equals(crd.getMetadata().getName()))
              .findFirst()
              .orElseThrow();
      assertThat(copy.getSpec()).as(crd.getMetadata().getName()).isEqualTo(crd.getSpec());
      assertThat(copy.getMetadata().getAnnotations())
          .containsEntry("helm.sh/resource-policy", "keep");
    }
    // Helm's crds/ folder is installed once and never upgraded; a CRD in both would clash.
    assertThat(chart().dir().resolve("crds")).doesNotExist();
  }

  @Test
  void crdsLoseOnlyTheirCelRulesOnApiServersThatDoNotKnowThem() {
    List<CustomResourceDefinition> rendered =
        all(chart().renderFor("v1.20.2"), CustomResourceDefinition.class);

    assertThat(rendered).hasSameSizeAs(shippedCrds());
    for (CustomResourceDefinition crd : rendered) {
      // Helm validates templates against the server's schema, where 1.20 has no such field.
      assertThat(HelmChartFixture.serialization().asJson(crd))
          .as(crd.getMetadata().getName())
          .doesNotContain("x-kubernetes-validations");
      assertThat(crd.getSpec().getVersions()).isNotEmpty();
    }
  }

  @Test
  void crdsCanBeLeftToWhoeverManagesThem() {
    List<HasMetadata> objects = chart().render("crds.install", "false");

    assertThat(all(objects, CustomResourceDefinition.class)).isEmpty();
    assertThat(all(objects, Deployment.class)).hasSize(1);
  }

  @Test
  void defaultImageTagIsTheAppVersion() {
    assertThat(chart().chartYaml().get("name")).isEqualTo(operatorName());
    assertThat(operatorContainer(only(chart().render(), Deployment.class)).getImage())
        .isEqualTo(imageRepository() + ":" + chart().chartYaml().get("appVersion"));
  }

  @Test
  void valuesReachTheDeployment() {
    Deployment deployment =
        only(
            chart()
                .render(
                    "image.tag", "1.2.3",
                    "logLevel", "DEBUG",
                    "metrics.port", "9090",
                    "podAnnotations.team", "platform",
                    "replicaCount", "2"),
            Deployment.class);
    Container container = operatorContainer(deployment);

    assertThat(container.getImage()).isEqualTo(imageRepository() + ":1.2.3");
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    // With leader election (the default) a new pod waits for the Lease: rolling is safe.
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(env(deployment).get("BOSUN_LOG_LEVEL").getValue()).isEqualTo("DEBUG");
    assertThat(env(deployment).get(OperatorSettings.HTTP_PORT).getValue()).isEqualTo("9090");
    assertThat(container.getPorts().get(0).getContainerPort()).isEqualTo(9090);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("team", "platform")
        .containsEntry("prometheus.io/port", "9090");
  }

  @Test
  void withoutLeaderElectionTheOldPodStopsFirstAndNoLeaseIsGranted() {
    List<HasMetadata> objects = renderOperator("leaderElection.enabled", "false");
    Deployment deployment = only(objects, Deployment.class);

    assertThat(env(deployment).get(OperatorSettings.LEADER_ELECTION).getValue()).isEqualTo("false");
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    assertThat(deployment.getSpec().getStrategy().getRollingUpdate()).isNull();
    assertThat(all(objects, Role.class))
        .map(r -> "Role/" + r.getMetadata().getName())
        .isSubsetOf(alsoRenderedByDefault());
    assertThat(all(objects, RoleBinding.class))
        .map(r -> "RoleBinding/" + r.getMetadata().getName())
        .isSubsetOf(alsoRenderedByDefault());
    assertThat(all(objects, ClusterRole.class)).hasSize(1);
    assertThat(
            OperatorSettings.fromMap(operatorName(), resolvedEnv(deployment, chart().namespace())))
        .satisfies(settings -> assertThat(settings.leaderElection()).isFalse());
  }

  @Test
  void rbacAndServiceAccountCanBeLeftToTheCluster() {
    List<HasMetadata> objects =
        chart()
            .render(
                "rbac.create",
                "false",
                "serviceAccount.create",
                "false",
                "serviceAccount.name",
                "ops");

    // The admission webhook's Service and configuration (on by default) stay without RBAC.
    List<String> kinds =
        new ArrayList<>(
            List.of("Service", "Deployment", "Service", "ValidatingWebhookConfiguration"));
    alsoRenderedByDefault().stream()
        .map(o -> o.substring(0, o.indexOf('/')))
        .filter(kind -> !kind.startsWith("Role") && !kind.startsWith("ClusterRole"))
        .forEach(kinds::add);
    assertThat(objects)
        .map(HasMetadata::getKind)
        .filteredOn(kind -> !kind.equals("CustomResourceDefinition"))
        .containsExactlyInAnyOrderElementsOf(kinds);
    assertThat(serviceAccountName(only(objects, Deployment.class))).isEqualTo("ops");
  }

  @Test
  void lintsCleanInStrictMode() {
    chart().assertLintsClean();
  }

  @Test
  void lintFailsWhenTheDefaultValuesBreakTheSchema(@TempDir Path copy) {
    HelmChartFixture broken = chart().copyTo(copy);
    broken.editValues("\nreplicaCount: 1\n", "\nreplicaCount: -1\n");

    LintResult result = broken.lint();

    assertThat(result.isFailed()).isTrue();
    assertThat(String.join("\n", result.getMessages())).contains("schema").contains("replicaCount");
  }

  @Test
  void noRoleUsesAWildcard() {
    List<HasMetadata> objects = new ArrayList<>(renderOperator());
    for (List<String> variant : rbacVariants()) {
      objects.addAll(renderOperator(variant.toArray(String[]::new)));
    }
    assertNoWildcards(objects);
  }

  @Test
  void clusterRoleGrantsExactlyWhatTheOperatorNeeds() {
    assertClusterRoleGrantsExactly(renderOperator(), operatorPermissions(), chart().namespace());
  }

  @Test
  void clusterRoleCoversEveryKindTheChartShips() {
    Set<String> granted =
        ChartAssertions.permissions(
            only(renderOperator(), io.fabric8.kubernetes.api.model.rbac.ClusterRole.class)
                .getRules());
    for (CustomResourceDefinition crd : shippedCrds()) {
      String group = crd.getSpec().getGroup();
      String plural = crd.getSpec().getNames().getPlural();
      assertThat(granted)
          .as("%s", crd.getMetadata().getName())
          .contains(group + "|" + plural + "|watch", group + "|" + plural + "/status|patch");
    }
  }

  @Test
  void leaderElectionRoleCoversTheOperatorsLeaseOnly() {
    assertLeaderElectionRoleLimitedToLease(
        renderOperator(),
        fullname(),
        chart().namespace(),
        OperatorSettings.local(operatorName()).leaseName());
  }

  @Test
  void deploymentIsHardened() {
    Deployment deployment = only(renderOperator(), Deployment.class);

    assertHardened(deployment);
    assertResources(operatorContainer(deployment), "100m", "256Mi", "512Mi");
    assertThat(serviceAccountName(deployment)).isEqualTo(fullname());
  }

  @Test
  void probesAndMetricsUseTheOperatorsHttpPort() {
    assertMetricsAndProbesOn(renderOperator(), 8080);
  }

  @Test
  void serviceMonitorIsOffByDefault() {
    assertThat(chart().render()).noneMatch(o -> SERVICE_MONITOR.equals(o.getKind()));
  }

  @Test
  void serviceMonitorScrapesTheMetricsServicesPortWhereTheApiIsServed(@TempDir Path copy) {
    List<HasMetadata> objects =
        renderWhereMonitorsAreServed(
            copy,
            "serviceMonitor.enabled",
            "true",
            "serviceMonitor.interval",
            "15s",
            "serviceMonitor.scrapeTimeout",
            "5s",
            "serviceMonitor.labels.release",
            "prometheus");
    GenericKubernetesResource monitor = serviceMonitor(objects);
    Service metrics = ChartAssertions.metricsService(objects);
    Map<String, Object> endpoint = monitor.get("spec", "endpoints", 0);

    assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(monitor.getMetadata().getName()).isEqualTo(fullname());
    assertThat(monitor.getMetadata().getNamespace()).isEqualTo(chart().namespace());
    assertThat(monitor.getMetadata().getLabels())
        .containsEntry("release", "prometheus")
        .containsEntry("app.kubernetes.io/name", operatorName());
    Map<String, String> selector = monitor.get("spec", "selector", "matchLabels");
    assertThat(metrics.getMetadata().getLabels()).containsAllEntriesOf(selector);
    assertThat(selector).containsKeys("app.kubernetes.io/name", "app.kubernetes.io/instance");
    assertThat(metrics.getSpec().getPorts())
        .anyMatch(p -> p.getName().equals(endpoint.get("port")) && p.getPort() == 8080);
    assertThat(endpoint)
        .containsEntry("port", ChartAssertions.METRICS_PORT)
        .containsEntry("path", "/metrics")
        .containsEntry("interval", "15s")
        .containsEntry("scrapeTimeout", "5s");
    List<String> namespaces = monitor.get("spec", "namespaceSelector", "matchNames");
    assertThat(namespaces).containsExactly(chart().namespace());
  }

  @Test
  void anUmbrellaChartsGlobalServiceMonitorEnablesIt(@TempDir Path copy) {
    Map<String, Object> endpoint =
        serviceMonitor(
                renderWhereMonitorsAreServed(
                    copy,
                    "global.serviceMonitor.enabled",
                    "true",
                    "global.serviceMonitor.interval",
                    "1m"))
            .get("spec", "endpoints", 0);

    assertThat(endpoint).containsEntry("interval", "1m").doesNotContainKey("scrapeTimeout");
  }

  @Test
  void enablingTheServiceMonitorWithoutTheApiFailsSayingWhy() {
    assertThatThrownBy(() -> chart().render("serviceMonitor.enabled", "true"))
        .hasMessageContaining("ServiceMonitor API (monitoring.coreos.com/v1)")
        .hasMessageContaining("leave serviceMonitor.enabled false");
  }

  @Test
  void serviceMonitorDurationsMustBePrometheusDurations() {
    chart().assertSchemaRejects(List.of("serviceMonitor.interval", "soon"), "serviceMonitor");
  }

  /** Renders a copy of the chart in {@code copy} as on a cluster serving ServiceMonitors. */
  private List<HasMetadata> renderWhereMonitorsAreServed(Path copy, String... keysAndValues) {
    return chart().copyServing(copy, SERVICE_MONITOR_API).render(withoutWebhook(keysAndValues));
  }

  private static GenericKubernetesResource serviceMonitor(List<HasMetadata> objects) {
    List<HasMetadata> monitors =
        objects.stream().filter(o -> SERVICE_MONITOR.equals(o.getKind())).toList();
    assertThat(monitors).hasSize(1);
    return (GenericKubernetesResource) monitors.get(0);
  }

  @Test
  void chartShipsItsCrdsByteForByte() throws IOException {
    Path sources = chart().dir().resolve("..").resolve("..").resolve("crds").resolve(crdGroup());
    List<String> expected;
    try (Stream<Path> files = Files.list(sources)) {
      expected =
          files
              .map(p -> p.getFileName().toString())
              .filter(name -> name.endsWith("-v1.yml"))
              .sorted()
              .toList();
    }

    assertThat(expected).isNotEmpty();
    assertThat(chart().shippedCrds()).isEqualTo(expected);
    for (String file : expected) {
      assertThat(Files.mismatch(chart().crdFiles().resolve(file), sources.resolve(file)))
          .as(
              "chart/files/crds/%s drifted from crds/%s: run the build to copy it again",
              file, crdGroup())
          .isEqualTo(-1L);
    }
  }

  @Test
  void sharedTemplatesComeFromTheOneLibraryChart() throws IOException {
    Path library = chart().dir().resolve("..").resolve("..").resolve("charts").resolve("library");
    Path linked = chart().dir().resolve("charts").resolve("bosun-library");

    assertThat(Files.isSymbolicLink(linked))
        .as("charts/bosun-library is a link to the repository's charts/library, never a copy")
        .isTrue();
    assertThat(linked.toRealPath()).isEqualTo(library.toRealPath());
    assertThat(chart().chartYaml().get("dependencies").toString())
        .contains("name=bosun-library")
        .contains("repository=file://../../charts/library");
    try (Stream<Path> templates = Files.list(chart().dir().resolve("templates"))) {
      assertThat(templates.map(p -> p.getFileName().toString()))
          .as("the shared helpers are defined once, in the library")
          .allSatisfy(
              name ->
                  assertThat(Files.readString(chart().dir().resolve("templates").resolve(name)))
                      .doesNotContain("define \"" + operatorName() + ".fullname\"")
                      .doesNotContain("define \"" + operatorName() + ".labels\""));
    }
  }
}
