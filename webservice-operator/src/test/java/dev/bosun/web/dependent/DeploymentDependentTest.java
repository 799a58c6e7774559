package dev.bosun.web.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeploymentDependentTest {

  private static final Map<String, String> SELECTOR =
      Map.of(
          "app.kubernetes.io/name", "webservice",
          "app.kubernetes.io/instance", "shop",
          "app.kubernetes.io/component", "server");

  private static final Map<String, String> LABELS =
      Map.of(
          "app.kubernetes.io/name", "webservice",
          "app.kubernetes.io/instance", "shop",
          "app.kubernetes.io/component", "server",
          "app.kubernetes.io/managed-by", "bosun-webservice-operator",
          "app.kubernetes.io/part-of", "bosun");

  private static final String MINIMAL =
      """
      image: registry.example.com/team/app:1.4.2
      replicas: 3
      ports:
        - {name: http, port: 80, containerPort: 8080}
        - {name: metrics, port: 9090}
      """;

  @Test
  void theStableAndTheCanaryDeploymentAreToldApartByNameAlone() {
    WebService ws = webService(MINIMAL, 7);
    // No context: telling them apart builds no desired Deployment (that needs the informers).
    assertThat(new DeploymentDependent().targetSecondaryResourceID(ws, null))
        .isEqualTo(new ResourceID("shop", "prod"));
    assertThat(new CanaryDeploymentDependent().targetSecondaryResourceID(ws, null))
        .isEqualTo(new ResourceID("shop-canary", "prod"));
  }

  @Test
  void identityLabelsAndAnnotation() {
    Deployment d = DeploymentDependent.desiredDeployment(webService(MINIMAL, 7), Optional.empty());

    assertThat(d.getMetadata().getName()).isEqualTo("shop");
    assertThat(d.getMetadata().getNamespace()).isEqualTo("prod");
    assertThat(d.getMetadata().getLabels()).containsExactlyInAnyOrderEntriesOf(LABELS);
    assertThat(d.getMetadata().getAnnotations())
        .containsEntry("web.bosun.dev/spec-generation", "7");
  }

  @Test
  void selectorIsTheStableSubsetOfThePodLabels() {
    Deployment d = DeploymentDependent.desiredDeployment(webService(MINIMAL, 1), Optional.empty());

    assertThat(d.getSpec().getSelector().getMatchLabels())
        .containsExactlyInAnyOrderEntriesOf(SELECTOR);
    assertThat(d.getSpec().getSelector().getMatchExpressions()).isNullOrEmpty();
    assertThat(d.getSpec().getTemplate().getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(LABELS);
  }

  @Test
  void replicasAndRolloutSettings() {
    Deployment d = DeploymentDependent.desiredDeployment(webService(MINIMAL, 1), Optional.empty());

    assertThat(d.getSpec().getReplicas()).isEqualTo(3);
    assertThat(d.getSpec().getProgressDeadlineSeconds()).isEqualTo(600);
    assertThat(d.getSpec().getRevisionHistoryLimit()).isEqualTo(5);
    assertThat(d.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable())
        .isEqualTo(new IntOrString(0));
    assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge())
        .isEqualTo(new IntOrString("25%"));
  }

  @Test
  void progressDeadlineFromTheSpec() {
    Deployment d =
        DeploymentDependent.desiredDeployment(
            webService(MINIMAL + "progressDeadlineSeconds: 120\n", 1), Optional.empty());

    assertThat(d.getSpec().getProgressDeadlineSeconds()).isEqualTo(120);
  }

  @Test
  void oneContainerWithImageAndPorts() {
    Container c = container(MINIMAL);

    assertThat(c.getName()).isEqualTo("app");
    assertThat(c.getImage()).isEqualTo("registry.example.com/team/app:1.4.2");
    assertThat(c.getImagePullPolicy()).isEqualTo("IfNotPresent");
    assertThat(c.getPorts())
        .extracting(
            ContainerPort::getName, ContainerPort::getContainerPort, ContainerPort::getProtocol)
        .containsExactly(tuple("http", 8080, "TCP"), tuple("metrics", 9090, "TCP"));
  }

  @Test
  void unsetListsAreEmptyNeverNull() {
    Container c = container(MINIMAL);

    assertThat(c.getCommand()).isNotNull().isEmpty();
    assertThat(c.getArgs()).isNotNull().isEmpty();
    assertThat(c.getEnv()).isNotNull().isEmpty();
    assertThat(c.getEnvFrom()).isNotNull().isEmpty();
    assertThat(c.getResources()).isNull();
    assertThat(c.getReadinessProbe()).isNull();
    assertThat(c.getLivenessProbe()).isNull();
  }

  @Test
  void commandArgsPullPolicyAndEnvPassThrough() {
    Container c =
        container(
            MINIMAL
                + """
                imagePullPolicy: Always
                command: [/app/server]
                args: [--port, "8080"]
                env:
                  - name: MODE
                    value: production
                  - name: PASSWORD
                    valueFrom:
                      secretKeyRef: {name: creds, key: password}
                envFrom:
                  - configMapRef: {name: settings}
                    prefix: APP_
                """);

    assertThat(c.getImagePullPolicy()).isEqualTo("Always");
    assertThat(c.getCommand()).containsExactly("/app/server");
    assertThat(c.getArgs()).containsExactly("--port", "8080");
    assertThat(c.getEnv())
        .containsExactly(
            new EnvVar("MODE", "production", null),
            new EnvVarBuilder()
                .withName("PASSWORD")
                .withNewValueFrom()
                .withNewSecretKeyRef()
                .withName("creds")
                .withKey("password")
                .endSecretKeyRef()
                .endValueFrom()
                .build());
    assertThat(c.getEnvFrom()).hasSize(1);
    assertThat(c.getEnvFrom().get(0).getConfigMapRef().getName()).isEqualTo("settings");
    assertThat(c.getEnvFrom().get(0).getPrefix()).isEqualTo("APP_");
  }

  @Test
  void resourcesAreQuantities() {
    Container c =
        container(
            MINIMAL
                + """
                resources:
                  requests: {cpu: 250m, memory: 256Mi}
                  limits: {cpu: "1", memory: 1Gi}
                """);

    assertThat(c.getResources().getRequests())
        .containsOnly(
            Map.entry("cpu", new Quantity("250m")), Map.entry("memory", new Quantity("256Mi")));
    assertThat(c.getResources().getLimits())
        .containsOnly(
            Map.entry("cpu", new Quantity("1")), Map.entry("memory", new Quantity("1Gi")));
  }

  @Test
  void probePortsDefaultToTheFirstPortName() {
    Container c =
        container(
            MINIMAL
                + """
                readinessProbe:
                  httpGet: {path: /ready}
                livenessProbe:
                  tcpSocket: {}
                """);

    assertThat(c.getReadinessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString("http"));
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
    assertThat(c.getLivenessProbe().getTcpSocket().getPort()).isEqualTo(new IntOrString("http"));
  }

  @Test
  void anExplicitProbePortIsKept() {
    Container c =
        container(
            MINIMAL
                + """
                readinessProbe:
                  httpGet: {path: /metrics, port: metrics, scheme: HTTPS}
                  periodSeconds: 3
                livenessProbe:
                  tcpSocket: {port: metrics}
                """);

    assertThat(c.getReadinessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString("metrics"));
    assertThat(c.getReadinessProbe().getHttpGet().getScheme()).isEqualTo("HTTPS");
    assertThat(c.getReadinessProbe().getPeriodSeconds()).isEqualTo(3);
    assertThat(c.getLivenessProbe().getTcpSocket().getPort()).isEqualTo(new IntOrString("metrics"));
  }

  @Test
  void execProbeHasNoPort() {
    Container c =
        container(
            MINIMAL
                + """
                livenessProbe:
                  exec: {command: [/bin/true]}
                """);

    assertThat(c.getLivenessProbe().getExec().getCommand()).containsExactly("/bin/true");
    assertThat(c.getLivenessProbe().getHttpGet()).isNull();
    assertThat(c.getLivenessProbe().getTcpSocket()).isNull();
  }

  @Test
  void withAutoscalingAndNoDeploymentTheMinimumIsUsed() {
    Deployment d =
        DeploymentDependent.desiredDeployment(
            webService(MINIMAL + "autoscaling: {minReplicas: 2, maxReplicas: 6}\n", 1),
            Optional.empty());

    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
  }

  @Test
  void withAutoscalingTheObservedCountIsKept() {
    WebService ws = webService(MINIMAL + "autoscaling: {minReplicas: 2, maxReplicas: 6}\n", 1);

    assertThat(DeploymentDependent.desiredDeployment(ws, observed(4)).getSpec().getReplicas())
        .isEqualTo(4);
  }

  @Test
  void withAutoscalingTheObservedCountIsClampedToTheRange() {
    WebService ws = webService(MINIMAL + "autoscaling: {minReplicas: 2, maxReplicas: 6}\n", 1);

    assertThat(DeploymentDependent.desiredDeployment(ws, observed(9)).getSpec().getReplicas())
        .isEqualTo(6);
    assertThat(DeploymentDependent.desiredDeployment(ws, observed(1)).getSpec().getReplicas())
        .isEqualTo(2);
    assertThat(DeploymentDependent.desiredDeployment(ws, observed(0)).getSpec().getReplicas())
        .isEqualTo(2);
  }

  @Test
  void withAutoscalingAnObservedDeploymentWithoutReplicasGivesTheMinimum() {
    WebService ws = webService(MINIMAL + "autoscaling: {minReplicas: 3, maxReplicas: 6}\n", 1);
    Deployment noCount = new DeploymentBuilder().withNewSpec().endSpec().build();

    assertThat(
            DeploymentDependent.desiredDeployment(ws, Optional.of(noCount)).getSpec().getReplicas())
        .isEqualTo(3);
  }

  @Test
  void withAutoscalingTheMinimumDefaultsToOne() {
    WebService ws = webService(MINIMAL + "autoscaling: {maxReplicas: 6}\n", 1);
    ws.getSpec().getAutoscaling().setMinReplicas(null);

    assertThat(DeploymentDependent.desiredDeployment(ws, Optional.empty()).getSpec().getReplicas())
        .isEqualTo(1);
  }

  @Test
  void withoutAutoscalingTheSpecWinsOverTheObservedCount() {
    assertThat(
            DeploymentDependent.desiredDeployment(webService(MINIMAL, 1), observed(8))
                .getSpec()
                .getReplicas())
        .isEqualTo(3);
  }

  @Test
  void zeroReplicas() {
    WebService ws = webService(MINIMAL, 1);
    ws.getSpec().setReplicas(0);

    assertThat(DeploymentDependent.desiredDeployment(ws, Optional.empty()).getSpec().getReplicas())
        .isZero();
  }

  private static Optional<Deployment> observed(int replicas) {
    return Optional.of(
        new DeploymentBuilder()
            .withNewMetadata()
            .withName("shop")
            .withNamespace("prod")
            .endMetadata()
            .withNewSpec()
            .withReplicas(replicas)
            .endSpec()
            .build());
  }

  private static Container container(String specYaml) {
    Deployment d = DeploymentDependent.desiredDeployment(webService(specYaml, 1), Optional.empty());
    assertThat(d.getSpec().getTemplate().getSpec().getContainers()).hasSize(1);
    return d.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  static WebService webService(String specYaml, long generation) {
    String yaml =
        "apiVersion: web.bosun.dev/v1alpha1\n"
            + "kind: WebService\n"
            + "metadata: {name: shop, namespace: prod, uid: u-1, generation: "
            + generation
            + "}\n"
            + "spec:\n"
            + specYaml.indent(2);
    return Serialization.unmarshal(yaml, WebService.class);
  }
}
