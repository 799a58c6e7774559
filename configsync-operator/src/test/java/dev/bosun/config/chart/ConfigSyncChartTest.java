package dev.bosun.config.chart;

import static dev.bosun.config.ConfigSyncOperator.ACCEPT_SYNC_FROM;
import static dev.bosun.config.ConfigSyncOperator.ALLOW_SYNC_TO;
import static dev.bosun.config.ConfigSyncOperator.REQUIRE_DESTINATION_CONSENT;
import static dev.bosun.config.ConfigSyncOperator.SOURCE_LABEL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.Main;
import dev.bosun.config.sync.Consent;
import dev.bosun.config.v1alpha1.ConfigMapSync;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
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
 * RBAC it grants (exactly what the operator needs, cluster-wide, no wildcards), the hardening of
 * the pod, the environment contract with {@link OperatorSettings} and {@link Main}, its values
 * schema, the CRD copies it ships, and the first sync its notes show.
 */
class ConfigSyncChartTest {

  /** Surefire runs in the module directory. */
  private static final Path CHART = Path.of("chart");

  private static final Path CRD_SOURCES = Path.of("..", "crds", "config.bosun.dev");
  private static final List<String> CRD_FILES =
      List.of(
          "configmapsyncs.config.bosun.dev-v1.yml",
          "configmonitors.config.bosun.dev-v1.yml",
          "secretsyncs.config.bosun.dev-v1.yml");
  private static final String RELEASE = "bosun";
  private static final String NAMESPACE = "bosun-system";
  private static final String FULLNAME = "bosun-bosun-configsync-operator";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** What the operator does, as "apiGroup|resource|verb"; the chart must grant exactly this. */
  private static final Set<String> OPERATOR_PERMISSIONS =
      Stream.of(
              grants(
                  "config.bosun.dev",
                  List.of("configmapsyncs", "secretsyncs", "configmonitors"),
                  "get",
                  "list",
                  "watch",
                  "patch",
                  "update"),
              grants(
                  "config.bosun.dev",
                  List.of("configmapsyncs/status", "secretsyncs/status", "configmonitors/status"),
                  "get",
                  "patch",
                  "update"),
              grants(
                  "",
                  List.of("configmaps", "secrets"),
                  "get",
                  "list",
                  "watch",
                  "create",
                  "patch",
                  "update",
                  "delete"),
              grants("", "namespaces", "get", "list", "watch"),
              grants("", "pods", "list", "delete"),
              grants("", "events", "create", "patch", "update"),
              grants(
                  "apps",
                  List.of("deployments", "statefulsets", "daemonsets"),
                  "get",
                  "list",
                  "patch"))
          .flatMap(Set::stream)
          .collect(Collectors.toUnmodifiableSet());

  private static Set<String> grants(String apiGroup, String resource, String... verbs) {
    return grants(apiGroup, List.of(resource), verbs);
  }

  private static Set<String> grants(String apiGroup, List<String> resources, String... verbs) {
    return resources.stream()
        .flatMap(resource -> Stream.of(verbs).map(verb -> apiGroup + "|" + resource + "|" + verb))
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
    return documents(template.call());
  }

  private static List<HasMetadata> documents(String yaml) {
    Object parsed = SERIALIZATION.unmarshal(yaml);
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

  /** The container's environment as the kubelet would pass it (downward API resolved). */
  private static Map<String, String> resolvedEnv(Deployment deployment) {
    Map<String, String> resolved = new HashMap<>();
    env(deployment)
        .forEach(
            (name, var) -> {
              if (var.getValue() != null) {
                resolved.put(name, var.getValue());
              } else {
                assertThat(var.getValueFrom().getFieldRef().getFieldPath())
                    .isEqualTo("metadata.namespace");
                resolved.put(name, NAMESPACE);
              }
            });
    return resolved;
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
    assertThat(defaults).contains("\nrequireDestinationConsent: true\n");
    Files.writeString(
        values,
        defaults.replace(
            "\nrequireDestinationConsent: true\n", "\nrequireDestinationConsent: \"yes\"\n"));

    LintResult result = new Helm(copy).lint().strict().call();

    assertThat(result.isFailed()).isTrue();
    assertThat(String.join("\n", result.getMessages()))
        .contains("schema")
        .contains("requireDestinationConsent");
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
                    .containsEntry("app.kubernetes.io/name", "bosun-configsync-operator")
                    .containsEntry("app.kubernetes.io/instance", RELEASE)
                    .containsEntry("app.kubernetes.io/managed-by", "Helm")
                    .containsEntry("app.kubernetes.io/part-of", "bosun")
                    .containsEntry("app.kubernetes.io/component", "operator")
                    .containsKey("app.kubernetes.io/version"));
  }

  @Test
  void noRoleUsesAWildcard() {
    List<HasMetadata> objects = render();
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
  void clusterRoleCoversEveryKindTheChartShips() throws IOException {
    ClusterRole role = only(render(), ClusterRole.class);
    Set<String> granted = permissions(role.getRules());

    for (String file : CRD_FILES) {
      CustomResourceDefinition crd =
          SERIALIZATION.unmarshal(
              Files.readString(CHART.resolve("crds").resolve(file)),
              CustomResourceDefinition.class);
      String group = crd.getSpec().getGroup();
      String plural = crd.getSpec().getNames().getPlural();
      assertThat(granted)
          .as("%s", crd.getMetadata().getName())
          .contains(group + "|" + plural + "|watch", group + "|" + plural + "/status|patch");
    }
  }

  @Test
  void leaderElectionRoleCoversTheOperatorsLeaseOnly() {
    List<HasMetadata> objects = render();
    Role role = leaderElectionRole(objects);
    String lease = OperatorSettings.local(ConfigSyncOperator.NAME).leaseName();

    assertThat(lease).isEqualTo("bosun-configsync-operator-leader");
    assertThat(all(objects, Role.class)).containsExactly(role);
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
              assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
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
    assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
  }

  @Test
  void environmentFollowsTheOperatorsSettingsContract() {
    Deployment deployment = only(render(), Deployment.class);
    Map<String, EnvVar> env = env(deployment);

    assertThat(env)
        .containsOnlyKeys(
            OperatorSettings.LEADER_ELECTION,
            OperatorSettings.LEASE_NAMESPACE,
            OperatorSettings.HTTP_PORT,
            "BOSUN_LOG_LEVEL",
            "JAVA_TOOL_OPTIONS",
            REQUIRE_DESTINATION_CONSENT);
    // The operator copies into any namespace: it always watches all of them.
    assertThat(env).doesNotContainKey(OperatorSettings.WATCH_NAMESPACES);
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
    Map<String, String> resolved = resolvedEnv(deployment);
    OperatorSettings settings = OperatorSettings.fromMap(ConfigSyncOperator.NAME, resolved);
    assertThat(settings.watchNamespaces()).isEmpty();
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.leaseNamespace()).contains(NAMESPACE);
    assertThat(settings.httpPort()).isEqualTo(8080);
    assertThat(Main.destinationConsentRequired(resolved)).isTrue();
  }

  @Test
  void destinationConsentIsRequiredUnlessTurnedOff() {
    Deployment byDefault = only(render(), Deployment.class);
    Deployment turnedOff = only(render("requireDestinationConsent", "false"), Deployment.class);
    Deployment explicitlyOn = only(render("requireDestinationConsent", "true"), Deployment.class);

    assertThat(env(byDefault).get(REQUIRE_DESTINATION_CONSENT).getValue()).isEqualTo("true");
    assertThat(env(explicitlyOn).get(REQUIRE_DESTINATION_CONSENT).getValue()).isEqualTo("true");
    assertThat(env(turnedOff).get(REQUIRE_DESTINATION_CONSENT).getValue()).isEqualTo("false");
    // Main parses the value strictly: what the chart writes must be what it accepts.
    assertThat(Main.destinationConsentRequired(resolvedEnv(byDefault))).isTrue();
    assertThat(Main.destinationConsentRequired(resolvedEnv(turnedOff))).isFalse();
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
                "podAnnotations.team", "platform",
                "replicaCount", "2"),
            Deployment.class);
    Container container = operatorContainer(deployment);

    assertThat(container.getImage()).isEqualTo("bosun/configsync-operator:1.2.3");
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(env(deployment).get("BOSUN_LOG_LEVEL").getValue()).isEqualTo("DEBUG");
    assertThat(env(deployment).get(OperatorSettings.HTTP_PORT).getValue()).isEqualTo("9090");
    assertThat(container.getPorts().get(0).getContainerPort()).isEqualTo(9090);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("team", "platform")
        .containsEntry("prometheus.io/port", "9090");
  }

  @Test
  void defaultImageTagIsTheAppVersion() throws IOException {
    Map<?, ?> chart =
        SERIALIZATION.unmarshal(Files.readString(CHART.resolve("Chart.yaml")), Map.class);

    assertThat(chart.get("name")).isEqualTo("bosun-configsync-operator");
    assertThat(operatorContainer(only(render(), Deployment.class)).getImage())
        .isEqualTo("bosun/configsync-operator:" + chart.get("appVersion"));
  }

  @Test
  void withoutLeaderElectionTheOldPodStopsFirstAndNoLeaseIsGranted() {
    List<HasMetadata> objects = render("leaderElection.enabled", "false");
    Deployment deployment = only(objects, Deployment.class);

    assertThat(env(deployment).get(OperatorSettings.LEADER_ELECTION).getValue()).isEqualTo("false");
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    assertThat(deployment.getSpec().getStrategy().getRollingUpdate()).isNull();
    assertThat(all(objects, Role.class)).isEmpty();
    assertThat(all(objects, RoleBinding.class)).isEmpty();
    assertThat(all(objects, ClusterRole.class)).hasSize(1);
    assertThat(OperatorSettings.fromMap(ConfigSyncOperator.NAME, resolvedEnv(deployment)))
        .satisfies(settings -> assertThat(settings.leaderElection()).isFalse());
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

  private static String notes(String... keysAndValues) {
    InstallCommand install =
        new Helm(CHART).install().withName(RELEASE).withNamespace(NAMESPACE).clientOnly().dryRun();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      install = install.set(keysAndValues[i], keysAndValues[i + 1]);
    }
    return install.call().getOutput();
  }

  @Test
  void notesShowAFirstConfigMapSyncWithConsentOnBothSides() {
    String notes = notes();

    assertThat(notes)
        .contains(SOURCE_LABEL + "=true")
        .contains(ALLOW_SYNC_TO)
        .contains(ACCEPT_SYNC_FROM)
        .contains("\"*\"")
        .contains("kubectl get configmapsyncs -A -w");
    // The example is a heredoc the user pastes: a ConfigMapSync of the shipped CRD, its source
    // ConfigMap and the destination namespace, consenting as the operator checks it.
    String example =
        notes.substring(
            notes.indexOf("<<'EOF'\n") + "<<'EOF'\n".length(), notes.indexOf("\nEOF\n"));
    List<HasMetadata> objects = documents(example);
    // Generic whether or not the generated ConfigMapSync class is registered for deserializing.
    assertThat(objects)
        .map(HasMetadata::getKind)
        .containsExactlyInAnyOrder("Namespace", "Namespace", "ConfigMap", "ConfigMapSync");
    GenericKubernetesResource sync =
        SERIALIZATION.convertValue(
            objects.stream().filter(o -> o.getKind().equals("ConfigMapSync")).findFirst().get(),
            GenericKubernetesResource.class);
    CustomResourceDefinition crd =
        SERIALIZATION.unmarshal(
            readString(CRD_SOURCES.resolve("configmapsyncs.config.bosun.dev-v1.yml")),
            CustomResourceDefinition.class);
    CustomResourceDefinitionVersion version = crd.getSpec().getVersions().get(0);
    assertThat(sync.getApiVersion()).isEqualTo(crd.getSpec().getGroup() + "/" + version.getName());
    assertThat(sync.getKind()).isEqualTo(crd.getSpec().getNames().getKind());
    assertThat(sync.getMetadata().getName()).isNotBlank();
    assertConforms(
        sync.getAdditionalProperties().get("spec"),
        version.getSchema().getOpenAPIV3Schema().getProperties().get("spec"),
        "spec");

    ConfigMapSync typed = SERIALIZATION.unmarshal(SERIALIZATION.asYaml(sync), ConfigMapSync.class);
    String sourceNamespace = typed.getMetadata().getNamespace();
    ConfigMap source = only(objects, ConfigMap.class);
    assertThat(source.getMetadata().getNamespace()).isEqualTo(sourceNamespace).isNotBlank();
    assertThat(source.getMetadata().getName()).isEqualTo(typed.getSpec().getSource().getName());
    assertThat(source.getMetadata().getLabels()).containsEntry(SOURCE_LABEL, "true");
    assertThat(source.getData()).isNotEmpty();

    List<String> destinations = typed.getSpec().getDestinations().getNamespaces();
    assertThat(destinations).isNotEmpty().doesNotContain(sourceNamespace);
    Map<String, Namespace> namespaces =
        all(objects, Namespace.class).stream()
            .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
    assertThat(namespaces)
        .containsKey(sourceNamespace)
        .containsKeys(destinations.toArray(String[]::new));
    for (String destination : destinations) {
      assertThat(Consent.refusal(source, namespaces.get(destination), true))
          .as("the operator's consent check for %s", destination)
          .isEmpty();
    }
  }

  @Test
  void notesSayWhenDestinationConsentIsOff() {
    assertThat(notes()).doesNotContain("requireDestinationConsent=false");
    assertThat(notes("requireDestinationConsent", "false"))
        .contains("requireDestinationConsent=false")
        .contains("kubectl get configmapsyncs -A -w");
  }

  /**
   * Checks a value against a CRD's structural schema the way the API server would: types, required
   * and unknown fields, enums, patterns and lengths (CEL rules are left to the operator's tests).
   */
  private static void assertConforms(Object value, JSONSchemaProps schema, String path) {
    assertThat(value).as(path).isNotNull();
    switch (schema.getType()) {
      case "object" -> {
        assertThat(value).as(path).isInstanceOf(Map.class);
        Map<?, ?> object = (Map<?, ?>) value;
        if (schema.getRequired() != null) {
          assertThat(object.keySet())
              .as(path)
              .map(String::valueOf)
              .containsAll(schema.getRequired());
        }
        if (schema.getProperties() != null && !schema.getProperties().isEmpty()) {
          assertThat(object.keySet())
              .as(path + ": unknown fields")
              .map(String::valueOf)
              .allMatch(schema.getProperties()::containsKey);
          object.forEach(
              (key, field) ->
                  assertConforms(field, schema.getProperties().get(key), path + "." + key));
        }
        if (schema.getMinProperties() != null) {
          assertThat(object)
              .as(path)
              .hasSizeGreaterThanOrEqualTo(schema.getMinProperties().intValue());
        }
      }
      case "array" -> {
        assertThat(value).as(path).isInstanceOf(List.class);
        List<?> items = (List<?>) value;
        if (schema.getMaxItems() != null) {
          assertThat(items).as(path).hasSizeLessThanOrEqualTo(schema.getMaxItems().intValue());
        }
        for (int i = 0; i < items.size(); i++) {
          assertConforms(items.get(i), schema.getItems().getSchema(), path + "[" + i + "]");
        }
      }
      case "string" -> {
        assertThat(value).as(path).isInstanceOf(String.class);
        String string = (String) value;
        if (schema.getMinLength() != null) {
          assertThat(string).as(path).hasSizeGreaterThanOrEqualTo(schema.getMinLength().intValue());
        }
        if (schema.getMaxLength() != null) {
          assertThat(string).as(path).hasSizeLessThanOrEqualTo(schema.getMaxLength().intValue());
        }
        if (schema.getPattern() != null) {
          assertThat(string).as(path).containsPattern(schema.getPattern());
        }
        if (schema.getEnum() != null && !schema.getEnum().isEmpty()) {
          assertThat(schema.getEnum()).as(path).anyMatch(e -> e.asText().equals(string));
        }
      }
      default -> throw new AssertionError(path + ": unexpected schema type " + schema.getType());
    }
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
        Arguments.of(
            List.of("leaderElection.enabled", "false", "replicaCount", "2"), "/replicaCount"),
        Arguments.of(List.of("requireDestinationConsent", "maybe"), "/requireDestinationConsent"),
        Arguments.of(List.of("image.pullPolicy", "Sometimes"), "/image/pullPolicy"),
        Arguments.of(List.of("logLevel", "VERBOSE"), "/logLevel"),
        Arguments.of(List.of("metrics.port", "80"), "/metrics/port"),
        Arguments.of(List.of("resources.requests.cpu", "lots"), "/resources/requests/cpu"),
        Arguments.of(List.of("replicas", "3"), "'replicas' not allowed"),
        Arguments.of(List.of("rbac.create", "yes please"), "/rbac/create"),
        // Cluster-scoped only: the namespace-scoped options of other Bosun charts do not exist.
        Arguments.of(
            List.of("watchNamespaces[0]", "a"),
            "additional properties 'watchNamespaces' not allowed"),
        Arguments.of(
            List.of("rbac.scope", "namespace"),
            "at '/rbac': additional properties 'scope' not allowed"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valuesTheSchemaRejects")
  void schemaRejectsInvalidValues(List<String> keysAndValues, String where) {
    assertThatThrownBy(() -> render(keysAndValues.toArray(String[]::new)))
        .hasMessageContaining("schema")
        .hasMessageContaining(where);
  }

  @Test
  void chartShipsTheCrdsByteForByte() throws IOException {
    Path crds = CHART.resolve("crds");
    List<String> shipped;
    try (Stream<Path> files = Files.list(crds)) {
      shipped = files.map(p -> p.getFileName().toString()).sorted().toList();
    }
    List<String> sources;
    try (Stream<Path> files = Files.list(CRD_SOURCES)) {
      sources =
          files
              .map(p -> p.getFileName().toString())
              .filter(name -> name.endsWith("-v1.yml"))
              .sorted()
              .toList();
    }

    assertThat(sources).isEqualTo(CRD_FILES);
    assertThat(shipped).isEqualTo(CRD_FILES);
    for (String file : shipped) {
      assertThat(Files.mismatch(crds.resolve(file), CRD_SOURCES.resolve(file)))
          .as(
              "chart/crds/%s drifted from crds/config.bosun.dev: run the build to copy it again",
              file)
          .isEqualTo(-1L);
    }
  }
}
