package dev.bosun.common.testing;

import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.bosun.common.runtime.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What every Bosun operator chart must render: exact RBAC, a hardened pod, the settings env. */
public final class ChartAssertions {

  /** The user and group the operator's pod runs as (distroless "nonroot"). */
  public static final long NONROOT = 65532L;

  /** The name of the operator container's port for metrics and probes. */
  public static final String METRICS_PORT = "http-metrics";

  private ChartAssertions() {}

  /**
   * The permissions granting {@code verbs} (space-separated: "get list watch") on {@code resource},
   * as "apiGroup|resource|verb".
   */
  public static Set<String> grants(String apiGroup, String resource, String verbs) {
    return grants(apiGroup, List.of(resource), verbs);
  }

  /** The permissions granting {@code verbs} on each of {@code resources}, as {@link #grants}. */
  public static Set<String> grants(String apiGroup, List<String> resources, String verbs) {
    return resources.stream()
        .flatMap(
            resource ->
                Stream.of(verbs.trim().split(" +"))
                    .map(verb -> apiGroup + "|" + resource + "|" + verb))
        .collect(Collectors.toSet());
  }

  /** All of {@code grants} together: what an operator's chart must grant exactly. */
  @SafeVarargs
  public static Set<String> permissions(Set<String>... grants) {
    return Stream.of(grants).flatMap(Set::stream).collect(Collectors.toUnmodifiableSet());
  }

  /** Every (apiGroup, resource, verb) the rules grant, as "apiGroup|resource|verb". */
  public static Set<String> permissions(List<PolicyRule> rules) {
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

  /** Asserts that the rules of every ClusterRole and Role name their groups, resources, verbs. */
  public static void assertNoWildcards(List<HasMetadata> objects) {
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

  /**
   * Asserts that the one ClusterRole grants exactly {@code permissions}, on no named resource and
   * without aggregation, and is bound to the one ServiceAccount in {@code namespace}.
   */
  public static ClusterRole assertClusterRoleGrantsExactly(
      List<HasMetadata> objects, Set<String> permissions, String namespace) {
    ClusterRole role = only(objects, ClusterRole.class);

    assertThat(permissions(role.getRules())).isEqualTo(permissions);
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
                namespace));
    return role;
  }

  /** The Role named {@code fullname}-leader-election; fails if none is rendered. */
  public static Role leaderElectionRole(List<HasMetadata> objects, String fullname) {
    return all(objects, Role.class).stream()
        .filter(role -> role.getMetadata().getName().equals(fullname + "-leader-election"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no leader-election Role rendered"));
  }

  /**
   * Asserts that every rule of {@code role} but create (which RBAC cannot restrict by name) is
   * restricted to the one object {@code name}.
   */
  public static void assertLimitedToName(Role role, String name) {
    assertThat(role.getRules())
        .allSatisfy(
            rule -> {
              if (!rule.getVerbs().equals(List.of("create"))) {
                assertThat(rule.getResourceNames()).containsExactly(name);
              }
            });
  }

  /**
   * Asserts that the leader-election Role in {@code namespace} grants only what leader election on
   * {@code lease} needs, and is bound to the operator's ServiceAccount; returns the Role.
   */
  public static Role assertLeaderElectionRoleLimitedToLease(
      List<HasMetadata> objects, String fullname, String namespace, String lease) {
    Role role = leaderElectionRole(objects, fullname);

    assertThat(role.getMetadata().getNamespace()).isEqualTo(namespace);
    assertThat(permissions(role.getRules()))
        .isEqualTo(grants("coordination.k8s.io", "leases", "get create update patch"));
    // fabric8's LeaseLock renews with PATCH (without it a leader loses its Lease and exits: found
    // by e2e).
    assertLimitedToName(role, lease);

    RoleBinding binding =
        all(objects, RoleBinding.class).stream()
            .filter(b -> b.getRoleRef().getName().equals(role.getMetadata().getName()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("leader-election Role is not bound"));
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getMetadata().getNamespace()).isEqualTo(namespace);
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getNamespace()).isEqualTo(namespace);
              assertThat(s.getName())
                  .isEqualTo(serviceAccountName(only(objects, Deployment.class)));
            });
    return role;
  }

  /** The Deployment's one container; fails if the pod has another. */
  public static Container operatorContainer(Deployment deployment) {
    List<Container> containers = deployment.getSpec().getTemplate().getSpec().getContainers();
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  /** The ServiceAccount the Deployment's pods run as. */
  public static String serviceAccountName(Deployment deployment) {
    return deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
  }

  /** The operator container's environment, by name. */
  public static Map<String, EnvVar> env(Deployment deployment) {
    return operatorContainer(deployment).getEnv().stream()
        .collect(Collectors.toMap(EnvVar::getName, e -> e));
  }

  /**
   * The operator container's environment as the kubelet passes it (the Pod's namespace, the only
   * downward API field the charts use, resolved).
   */
  public static Map<String, String> resolvedEnv(Deployment deployment, String namespace) {
    Map<String, String> resolved = new HashMap<>();
    env(deployment)
        .forEach(
            (name, var) -> {
              if (var.getValueFrom() == null) {
                // The API server drops empty values: an unset value is "".
                resolved.put(name, var.getValue() == null ? "" : var.getValue());
              } else {
                assertThat(var.getValueFrom().getFieldRef().getFieldPath())
                    .isEqualTo("metadata.namespace");
                resolved.put(name, namespace);
              }
            });
    return resolved;
  }

  /**
   * Asserts the environment the chart's defaults give {@code operator} and the {@link
   * OperatorSettings} it reads from it (every namespace, leader election on a Lease in {@code
   * namespace}, port 8080); returns that environment resolved.
   */
  public static Map<String, String> assertDefaultSettingsEnv(
      Deployment deployment, String operator, String namespace) {
    Map<String, EnvVar> env = env(deployment);

    assertThat(env.get(OperatorSettings.LEADER_ELECTION).getValue()).isEqualTo("true");
    EnvVar leaseNamespace = env.get(OperatorSettings.LEASE_NAMESPACE);
    assertThat(leaseNamespace.getValue()).isNull();
    assertThat(leaseNamespace.getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("metadata.namespace");
    assertThat(env.get(OperatorSettings.HTTP_PORT).getValue()).isEqualTo("8080");
    assertThat(env.get("BOSUN_LOG_LEVEL").getValue()).isEqualTo("INFO");
    assertThat(env.get("JAVA_TOOL_OPTIONS").getValue()).isEqualTo("-XX:MaxRAMPercentage=75");

    Map<String, String> resolved = resolvedEnv(deployment, namespace);
    OperatorSettings settings = OperatorSettings.fromMap(operator, resolved);
    assertThat(settings.watchNamespaces()).isEmpty();
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.leaseNamespace()).contains(namespace);
    assertThat(settings.httpPort()).isEqualTo(8080);
    return resolved;
  }

  /**
   * Asserts a non-root pod with the runtime's seccomp profile, no host namespaces, and a read-only,
   * unprivileged container without capabilities that writes only to an emptyDir /tmp.
   */
  public static void assertHardened(Deployment deployment) {
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container container = operatorContainer(deployment);

    PodSecurityContext podSecurity = pod.getSecurityContext();
    assertThat(podSecurity.getRunAsNonRoot()).isTrue();
    assertThat(podSecurity.getRunAsUser()).isEqualTo(NONROOT);
    assertThat(podSecurity.getRunAsGroup()).isEqualTo(NONROOT);
    assertThat(podSecurity.getFsGroup()).isEqualTo(NONROOT);
    assertThat(podSecurity.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

    SecurityContext security = container.getSecurityContext();
    assertThat(security.getReadOnlyRootFilesystem()).isTrue();
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();
    assertThat(security.getPrivileged()).isFalse();
    assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();

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
    assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
  }

  /** Asserts the container requests exactly cpu and memory, and limits its memory. */
  public static void assertResources(
      Container container, String cpuRequest, String memoryRequest, String memoryLimit) {
    assertThat(container.getResources().getRequests())
        .containsOnlyKeys("cpu", "memory")
        .hasEntrySatisfying("cpu", q -> assertThat(q.toString()).isEqualTo(cpuRequest))
        .hasEntrySatisfying("memory", q -> assertThat(q.toString()).isEqualTo(memoryRequest));
    assertThat(container.getResources().getLimits())
        .hasEntrySatisfying("memory", q -> assertThat(q.toString()).isEqualTo(memoryLimit));
  }

  /**
   * Asserts that the operator's port {@value #METRICS_PORT} is {@code port}, serves both probes and
   * Prometheus scraping, and is the only port of the metrics Service (the Service serving it), a
   * ClusterIP selecting the pod. Other ports (a restore route) belong to other Services.
   */
  /** The one Service exposing the {@value #METRICS_PORT} port. */
  public static Service metricsService(List<HasMetadata> objects) {
    List<Service> metrics =
        all(objects, Service.class).stream()
            .filter(
                s ->
                    s.getSpec().getPorts().stream().anyMatch(p -> METRICS_PORT.equals(p.getName())))
            .toList();
    assertThat(metrics).as("Services with a %s port", METRICS_PORT).hasSize(1);
    return metrics.get(0);
  }

  public static void assertMetricsAndProbesOn(List<HasMetadata> objects, int port) {
    Deployment deployment = only(objects, Deployment.class);
    Container container = operatorContainer(deployment);

    assertThat(container.getPorts())
        .filteredOn(p -> METRICS_PORT.equals(p.getName()))
        .singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(port));
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container.getLivenessProbe().getHttpGet().getPort().getStrVal())
        .isEqualTo(METRICS_PORT);
    // A slow JVM start must not be mistaken for a hung operator: a startup probe allows minutes.
    assertThat(container.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(
            container.getStartupProbe().getPeriodSeconds()
                * container.getStartupProbe().getFailureThreshold())
        .isGreaterThanOrEqualTo(120);
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrVal())
        .isEqualTo(METRICS_PORT);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("prometheus.io/scrape", "true")
        .containsEntry("prometheus.io/port", String.valueOf(port));

    Service service = metricsService(objects);
    assertThat(service.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(service.getSpec().getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo(METRICS_PORT);
              assertThat(p.getPort()).isEqualTo(port);
              assertThat(p.getTargetPort().getStrVal()).isEqualTo(METRICS_PORT);
            });
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(deployment.getSpec().getSelector().getMatchLabels())
        .isEqualTo(service.getSpec().getSelector());
  }

  /**
   * Asserts that every object carries the Bosun operator labels for {@code name} and {@code
   * release}, and that every object but the cluster-scoped ones (RBAC, CRDs) is in {@code
   * namespace}.
   */
  public static void assertLabelledInNamespace(
      List<HasMetadata> objects, String name, String release, String namespace) {
    assertThat(objects)
        .filteredOn(
            o ->
                !(o instanceof ClusterRole
                    || o instanceof ClusterRoleBinding
                    || o instanceof CustomResourceDefinition
                    || o
                        instanceof
                        io.fabric8.kubernetes.api.model.admissionregistration.v1
                            .ValidatingWebhookConfiguration))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo(namespace));
    assertThat(objects)
        .allSatisfy(
            o ->
                assertThat(o.getMetadata().getLabels())
                    .containsEntry("app.kubernetes.io/name", name)
                    .containsEntry("app.kubernetes.io/instance", release)
                    .containsEntry("app.kubernetes.io/managed-by", "Helm")
                    .containsEntry("app.kubernetes.io/part-of", "bosun")
                    .containsEntry("app.kubernetes.io/component", "operator")
                    .containsKey("app.kubernetes.io/version"));
  }
}
