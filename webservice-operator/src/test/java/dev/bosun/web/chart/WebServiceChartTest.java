package dev.bosun.web.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.web.WebServiceOperator;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
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
class WebServiceChartTest {

  /** Surefire runs in the module directory. */
  private static final Path CHART = Path.of("chart");

  private static final Path CRD_SOURCE =
      Path.of("..", "crds", "web.bosun.dev", "webservices.web.bosun.dev-v1.yml");
  private static final String RELEASE = "bosun";
  private static final String NAMESPACE = "bosun-system";
  private static final String FULLNAME = "bosun-bosun-webservice-operator";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

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

  private static Set<String> grants(String apiGroup, String resource, String... verbs) {
    return Stream.of(verbs)
        .map(verb -> apiGroup + "|" + resource + "|" + verb)
        .collect(Collectors.toSet());
  }

  /** Every (apiGroup, resource, verb) the rules grant, as "apiGroup|resource|verb". */
  private static Set<String> permissions(List<PolicyRule> rules) {
    return rules.stream()
        .flatMap(
            rule ->
                rule.getApiGroups().stream()
                    .flatMap(
                        group ->
                            rule.getResources().stream()
                                .flatMap(
                                    resource ->
                                        rule.getVerbs().stream()
                                            .map(verb -> group + "|" + resource + "|" + verb))))
        .collect(Collectors.toSet());
  }

  /** Renders the chart with the given --set pairs (key1, value1, key2, value2, ...). */
  private static List<HasMetadata> render(String... keysAndValues) {
    TemplateCommand template =
        new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      template = template.set(keysAndValues[i], keysAndValues[i + 1]);
    }
    Object parsed = SERIALIZATION.unmarshal(template.call());
    if (parsed instanceof List<?> documents) {
      return documents.stream().map(HasMetadata.class::cast).toList();
    }
    return List.of((HasMetadata) parsed);
  }

  private static <T extends HasMetadata> List<T> all(List<HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> type) {
    List<T> found = all(objects, type);
    assertThat(found).as("rendered %ss", type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  private static Role leaderElectionRole(List<HasMetadata> objects) {
    return all(objects, Role.class).stream()
        .filter(role -> role.getMetadata().getName().equals(FULLNAME + "-leader-election"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no leader-election Role rendered"));
  }

  private static Container operatorContainer(Deployment deployment) {
    List<Container> containers = deployment.getSpec().getTemplate().getSpec().getContainers();
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  private static Map<String, EnvVar> env(Deployment deployment) {
    return operatorContainer(deployment).getEnv().stream()
        .collect(Collectors.toMap(EnvVar::getName, e -> e));
  }

  @Test
  void lintsCleanInStrictMode() {
    LintResult result = new Helm(CHART).lint().strict().call();

    assertThat(result.isFailed()).as("lint messages: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages())
        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
  }

  @Test
  void lintFailsWhenTheDefaultValuesBreakTheSchema(@TempDir Path copy) throws IOException {
    copyChart(copy);
    Path values = copy.resolve("values.yaml");
    String defaults = Files.readString(values);
    assertThat(defaults).contains("\nreplicaCount: 1\n");
    Files.writeString(values, defaults.replace("\nreplicaCount: 1\n", "\nreplicaCount: -1\n"));

    LintResult result = new Helm(copy).lint().strict().call();

    assertThat(result.isFailed()).isTrue();
    assertThat(String.join("\n", result.getMessages())).contains("schema").contains("replicaCount");
  }

  private static void copyChart(Path target) throws IOException {
    try (Stream<Path> files = Files.walk(CHART)) {
      for (Path source : files.toList()) {
        Path destination = target.resolve(CHART.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(destination);
        } else {
          Files.copy(source, destination);
        }
      }
    }
  }

  @Test
  void defaultsRenderTheOperatorWithClusterWideRbac() {
    List<HasMetadata> objects = render();

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
    assertThat(objects)
        .filteredOn(o -> !(o instanceof ClusterRole || o instanceof ClusterRoleBinding))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo(NAMESPACE));
    assertThat(objects)
        .allSatisfy(
            o ->
                assertThat(o.getMetadata().getLabels())
                    .containsEntry("app.kubernetes.io/name", "bosun-webservice-operator")
                    .containsEntry("app.kubernetes.io/instance", RELEASE)
                    .containsEntry("app.kubernetes.io/managed-by", "Helm")
                    .containsEntry("app.kubernetes.io/part-of", "bosun")
                    .containsEntry("app.kubernetes.io/component", "operator")
                    .containsKey("app.kubernetes.io/version"));
  }

  @Test
  void noRoleUsesAWildcard() {
    List<HasMetadata> objects =
        Stream.of(
                render(),
                render(
                    "rbac.scope",
                    "namespace",
                    "watchNamespaces[0]",
                    "a",
                    "watchNamespaces[1]",
                    "b"))
            .flatMap(List::stream)
            .toList();
    List<PolicyRule> rules =
        Stream.concat(
                all(objects, ClusterRole.class).stream().flatMap(r -> r.getRules().stream()),
                all(objects, Role.class).stream().flatMap(r -> r.getRules().stream()))
            .toList();

    assertThat(rules).hasSizeGreaterThan(2);
    assertThat(rules)
        .allSatisfy(
            rule -> {
              assertThat(rule.getApiGroups()).isNotEmpty().doesNotContain("*");
              assertThat(rule.getResources()).isNotEmpty().noneMatch(r -> r.contains("*"));
              assertThat(rule.getVerbs()).isNotEmpty().doesNotContain("*");
              assertThat(rule.getNonResourceURLs()).isNullOrEmpty();
            });
  }

  @Test
  void clusterRoleGrantsExactlyWhatTheOperatorNeeds() {
    List<HasMetadata> objects = render();
    ClusterRole role = only(objects, ClusterRole.class);

    assertThat(permissions(role.getRules())).isEqualTo(OPERATOR_PERMISSIONS);
    assertThat(role.getRules()).allSatisfy(r -> assertThat(r.getResourceNames()).isNullOrEmpty());
    assertThat(role.getAggregationRule()).isNull();

    ClusterRoleBinding binding = only(objects, ClusterRoleBinding.class);
    assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
    assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
    assertThat(binding.getSubjects())
        .extracting(Subject::getKind, Subject::getName, Subject::getNamespace)
        .containsExactly(
            tuple(
                "ServiceAccount",
                only(objects, ServiceAccount.class).getMetadata().getName(),
                NAMESPACE));
  }

  @Test
  void leaderElectionRoleCoversTheOperatorsLeaseOnly() {
    List<HasMetadata> objects = render();
    Role role = leaderElectionRole(objects);
    String lease = OperatorSettings.local(WebServiceOperator.NAME).leaseName();

    assertThat(role.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(permissions(role.getRules()))
        .isEqualTo(grants("coordination.k8s.io", "leases", "get", "create", "update"));
    // create cannot be restricted by name; get and update are restricted to the operator's Lease.
    assertThat(role.getRules())
        .allSatisfy(
            rule -> {
              if (!rule.getVerbs().equals(List.of("create"))) {
                assertThat(rule.getResourceNames()).containsExactly(lease);
              }
            });

    RoleBinding binding =
        all(objects, RoleBinding.class).stream()
            .filter(b -> b.getRoleRef().getName().equals(role.getMetadata().getName()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("leader-election Role is not bound"));
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName())
                  .isEqualTo(
                      only(objects, Deployment.class)
                          .getSpec()
                          .getTemplate()
                          .getSpec()
                          .getServiceAccountName());
            });
  }

  @Test
  void namespaceScopeGrantsRolesInTheWatchedNamespacesOnly() {
    List<HasMetadata> objects =
        render("rbac.scope", "namespace", "watchNamespaces[0]", "a", "watchNamespaces[1]", "b");

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
    assertThat(leaderElectionRole(objects).getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(
            env(only(objects, Deployment.class)).get(OperatorSettings.WATCH_NAMESPACES).getValue())
        .isEqualTo("a,b");
  }

  @Test
  void deploymentIsHardened() {
    Deployment deployment = only(render(), Deployment.class);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container container = operatorContainer(deployment);

    PodSecurityContext podSecurity = pod.getSecurityContext();
    assertThat(podSecurity.getRunAsNonRoot()).isTrue();
    assertThat(podSecurity.getRunAsUser()).isEqualTo(65532L);
    assertThat(podSecurity.getRunAsGroup()).isEqualTo(65532L);
    assertThat(podSecurity.getFsGroup()).isEqualTo(65532L);
    assertThat(podSecurity.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

    SecurityContext security = container.getSecurityContext();
    assertThat(security.getReadOnlyRootFilesystem()).isTrue();
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();
    assertThat(security.getPrivileged()).isFalse();
    assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();

    assertThat(container.getResources().getRequests())
        .containsOnlyKeys("cpu", "memory")
        .hasEntrySatisfying("cpu", q -> assertThat(q.toString()).isEqualTo("100m"))
        .hasEntrySatisfying("memory", q -> assertThat(q.toString()).isEqualTo("256Mi"));
    assertThat(container.getResources().getLimits())
        .hasEntrySatisfying("memory", q -> assertThat(q.toString()).isEqualTo("512Mi"));

    // A read-only root needs a writable /tmp for the JVM.
    assertThat(container.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/tmp");
              Volume volume =
                  pod.getVolumes().stream()
                      .filter(v -> v.getName().equals(m.getName()))
                      .findFirst()
                      .orElseThrow();
              assertThat(volume.getEmptyDir()).isNotNull();
            });
    assertThat(pod.getServiceAccountName()).isEqualTo(FULLNAME);
    assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
  }

  @Test
  void environmentFollowsTheOperatorsSettingsContract() {
    Deployment deployment = only(render(), Deployment.class);
    Map<String, EnvVar> env = env(deployment);

    assertThat(env.get(OperatorSettings.LEADER_ELECTION).getValue()).isEqualTo("true");
    EnvVar leaseNamespace = env.get(OperatorSettings.LEASE_NAMESPACE);
    assertThat(leaseNamespace.getValue()).isNull();
    assertThat(leaseNamespace.getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("metadata.namespace");
    assertThat(env.get(OperatorSettings.HTTP_PORT).getValue()).isEqualTo("8080");
    assertThat(env.get("BOSUN_LOG_LEVEL").getValue()).isEqualTo("INFO");
    assertThat(env.get("JAVA_TOOL_OPTIONS").getValue()).isEqualTo("-XX:MaxRAMPercentage=75");

    // What the operator reads from that environment, with the downward API resolved as the
    // kubelet would: every namespace, leader election on a Lease in the release namespace.
    Map<String, String> resolved = new HashMap<>();
    env.forEach(
        (name, var) -> resolved.put(name, var.getValue() != null ? var.getValue() : NAMESPACE));
    OperatorSettings settings = OperatorSettings.fromMap(WebServiceOperator.NAME, resolved);
    assertThat(settings.watchNamespaces()).isEmpty();
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.leaseNamespace()).contains(NAMESPACE);
    assertThat(settings.httpPort()).isEqualTo(8080);
  }

  @Test
  void probesAndMetricsUseTheOperatorsHttpPort() {
    List<HasMetadata> objects = render();
    Deployment deployment = only(objects, Deployment.class);
    Container container = operatorContainer(deployment);

    assertThat(container.getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("http-metrics");
              assertThat(p.getContainerPort()).isEqualTo(8080);
            });
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container.getLivenessProbe().getHttpGet().getPort().getStrVal())
        .isEqualTo("http-metrics");
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrVal())
        .isEqualTo("http-metrics");
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("prometheus.io/scrape", "true")
        .containsEntry("prometheus.io/port", "8080");

    Service service = only(objects, Service.class);
    assertThat(service.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(service.getSpec().getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("http-metrics");
              assertThat(p.getPort()).isEqualTo(8080);
              assertThat(p.getTargetPort().getStrVal()).isEqualTo("http-metrics");
            });
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(deployment.getSpec().getSelector().getMatchLabels())
        .isEqualTo(service.getSpec().getSelector());
  }

  @Test
  void valuesReachTheDeployment() {
    Deployment deployment =
        only(
            render(
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
  void defaultImageTagIsTheAppVersion() throws IOException {
    Map<?, ?> chart =
        SERIALIZATION.unmarshal(Files.readString(CHART.resolve("Chart.yaml")), Map.class);

    assertThat(operatorContainer(only(render(), Deployment.class)).getImage())
        .isEqualTo("bosun/webservice-operator:" + chart.get("appVersion"));
  }

  @Test
  void withoutLeaderElectionTheOldPodStopsFirstAndNoLeaseIsGranted() {
    List<HasMetadata> objects = render("leaderElection.enabled", "false");
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
        render(
            "rbac.create", "false", "serviceAccount.create", "false", "serviceAccount.name", "ops");

    assertThat(objects)
        .map(HasMetadata::getKind)
        .containsExactlyInAnyOrder("Service", "Deployment");
    assertThat(
            only(objects, Deployment.class)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getServiceAccountName())
        .isEqualTo("ops");
  }

  @Test
  void notesShowHowToCreateAndWatchAFirstWebService() {
    String notes =
        new Helm(CHART)
            .install()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .clientOnly()
            .dryRun()
            .call()
            .getOutput();

    assertThat(notes).contains("kubectl get webservices -w");
    // The example is a heredoc the user pastes: it must be a WebService of the shipped CRD with
    // every field the CRD requires.
    String example =
        notes.substring(
            notes.indexOf("<<'EOF'\n") + "<<'EOF'\n".length(), notes.indexOf("\nEOF\n"));
    GenericKubernetesResource webService =
        SERIALIZATION.unmarshal(example, GenericKubernetesResource.class);
    CustomResourceDefinition crd =
        SERIALIZATION.unmarshal(readString(CRD_SOURCE), CustomResourceDefinition.class);
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

  private static String readString(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
    assertThatThrownBy(() -> render(keysAndValues.toArray(String[]::new)))
        .hasMessageContaining("schema")
        .hasMessageContaining(where);
  }

  @Test
  void chartShipsTheCrdByteForByte() throws IOException {
    Path crds = CHART.resolve("crds");
    List<String> shipped;
    try (Stream<Path> files = Files.list(crds)) {
      shipped = files.map(p -> p.getFileName().toString()).sorted().toList();
    }

    assertThat(shipped).containsExactly(CRD_SOURCE.getFileName().toString());
    assertThat(Files.mismatch(crds.resolve(shipped.get(0)), CRD_SOURCE))
        .as("chart/crds drifted from crds/web.bosun.dev: run the build to copy it again")
        .isEqualTo(-1L);
  }
}
