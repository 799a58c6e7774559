package dev.bosun.web.reconciler;

import static dev.bosun.web.WebServices.fromYaml;
import static dev.bosun.web.WebServices.webService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.PodFailure;
import dev.bosun.common.testing.ReconcileCounter;
import dev.bosun.common.testing.WriteCounter;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.dependent.MetricAutoscalers;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.Autoscaling;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The WebService operator against a real API server, controller manager and simulated kubelet. */
@ExtendWith(ControlPlaneExtension.class)
class WebServiceReconcilerIT {

  static final WriteCounter WRITES = new WriteCounter();
  static final CanarySampler SAMPLER = new CanarySampler(AnswerServers::address);
  static final ReconcileCounter RECONCILES = new ReconcileCounter();
  static final KubernetesClient OPERATOR_CLIENT =
      ControlPlaneExtension.controlPlane()
          .adminClient(b -> b.addOrReplaceInterceptor("writes", WRITES));

  @RegisterExtension
  static final LocallyRunOperatorExtension OPERATOR =
      LocallyRunOperatorExtension.builder()
          .withKubernetesClient(OPERATOR_CLIENT)
          .withAdditionalCRD(Crds.servableFile(OPERATOR_CLIENT, "webservices.web.bosun.dev"))
          .withReconciler(
              new WebServiceReconciler(
                  new EventRecorder(OPERATOR_CLIENT, WebServiceOperator.NAME),
                  java.time.Clock.systemUTC(),
                  SAMPLER))
          .withConfigurationService(o -> o.withMetrics(RECONCILES).withCloseClientOnStop(false))
          // One operator and namespace per class: in per-test mode the extension closes the client
          // and deletes the CRD after every test. Each test uses its own resource names.
          .oneNamespacePerClass(true)
          .waitForNamespaceDeletion(false)
          .build();

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private WebService get(String name) {
    return OPERATOR.get(WebService.class, name);
  }

  /** Lets time pass while the operator could act (the counters then show whether it did). */
  private static void observeFor(Duration period) {
    await().pollDelay(period).atMost(period.plusSeconds(5)).until(() -> true);
  }

  private Condition condition(String name, String type) {
    WebService ws = get(name);
    assertThat(ws.getStatus()).as("status of %s", name).isNotNull();
    return Conditions.find(ws.getStatus().getConditions(), type).orElseThrow();
  }

  /** Waits until one snapshot of the WebService says Ready for its current generation. */
  private WebService awaitReady(String name) {
    return await()
        .atMost(TIMEOUT)
        .until(
            () -> get(name),
            ws ->
                ws.getStatus() != null
                    && ws.getMetadata()
                        .getGeneration()
                        .equals(ws.getStatus().getObservedGeneration())
                    && Conditions.isTrue(ws.getStatus().getConditions(), "Ready"));
  }

  private WebService edit(String name, UnaryOperator<WebServiceSpec> change) {
    return editWebService(
        name,
        ws -> {
          ws.setSpec(change.apply(ws.getSpec()));
          return ws;
        });
  }

  /**
   * A read-modify-write as a user's kubectl edit does it, tried again when the operator's status
   * write came in between (409 Conflict): the edit itself is applied exactly once.
   */
  private WebService editWebService(String name, UnaryOperator<WebService> change) {
    return Edits.edit(OPERATOR.resources(WebService.class).withName(name), change);
  }

  private List<Event> events(String name) {
    return OPERATOR
        .getKubernetesClient()
        .v1()
        .events()
        .inNamespace(OPERATOR.getNamespace())
        .list()
        .getItems()
        .stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  @Test
  void createdWebServiceBecomesReadyWithOwnedLabelledChildren() {
    OPERATOR.create(webService("shop", "registry.example.com/shop:1.0", 2));
    WebService ws = awaitReady("shop");
    assertThat(ws.getStatus().getReadyReplicas()).isEqualTo(2);
    assertThat(ws.getStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(ws.getStatus().getUrl())
        .isEqualTo("http://shop." + OPERATOR.getNamespace() + ".svc:80");
    assertThat(ws.getStatus().getSelector()).contains(Labels.INSTANCE + "=shop");
    assertThat(condition("shop", "Available").getStatus()).isEqualTo("True");
    assertThat(condition("shop", "Progressing").getReason()).isEqualTo("RolloutComplete");
    assertThat(condition("shop", "Degraded").getStatus()).isEqualTo("False");

    Deployment deployment = OPERATOR.get(Deployment.class, "shop");
    Service service = OPERATOR.get(Service.class, "shop");
    for (var child : List.of(deployment, service)) {
      assertThat(child.getMetadata().getLabels())
          .containsEntry(Labels.MANAGED_BY, WebServiceOperator.NAME)
          .containsEntry(Labels.PART_OF, "bosun")
          .containsEntry(Labels.INSTANCE, "shop");
      assertThat(child.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(o -> assertThat(o.getUid()).isEqualTo(ws.getMetadata().getUid()));
      assertThat(child.getMetadata().getManagedFields())
          .anySatisfy(f -> assertThat(f.getManager()).isEqualTo(WebServiceOperator.NAME));
    }
    assertThat(
            deployment
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getPorts()
                .get(0)
                .getContainerPort())
        .isEqualTo(8080);
    assertThat(service.getSpec().getPorts().get(0).getTargetPort().getStrVal()).isEqualTo("http");
    // A new WebService's first Ready is news for nobody: status only, no Event (one write less).
    assertThat(events("shop")).noneSatisfy(e -> assertThat(e.getReason()).isEqualTo("Ready"));
  }

  @Test
  void scalingAndImageChangeRollOutToReady() {
    OPERATOR.create(webService("api", "registry.example.com/api:1.0", 1));
    awaitReady("api");

    edit(
        "api",
        s -> {
          s.setReplicas(3);
          return s;
        });
    assertThat(awaitReady("api").getStatus().getReadyReplicas()).isEqualTo(3);

    edit(
        "api",
        s -> {
          s.setImage("registry.example.com/api:2.0");
          return s;
        });
    WebService rolledOut = awaitReady("api");
    assertThat(rolledOut.getStatus().getUpdatedReplicas()).isEqualTo(3);
    Deployment deployment = OPERATOR.get(Deployment.class, "api");
    assertThat(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.example.com/api:2.0");
    // The real deployment controller rolled out a second ReplicaSet, and only new pods remain.
    assertThat(
            OPERATOR
                .resources(io.fabric8.kubernetes.api.model.apps.ReplicaSet.class)
                .withLabel(Labels.INSTANCE, "api")
                .list()
                .getItems())
        .hasSize(2);
    assertThat(
            OPERATOR
                .resources(io.fabric8.kubernetes.api.model.Pod.class)
                .withLabel(Labels.INSTANCE, "api")
                .list()
                .getItems())
        .hasSize(3)
        .allSatisfy(
            p -> assertThat(p.getSpec().getContainers().get(0).getImage()).endsWith("api:2.0"));
    // Ready again after a change is news: the rollouts announce their end.
    assertThat(events("api"))
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("RollingOut"))
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("Ready"));
  }

  @ParameterizedTest
  @EnumSource(
      value = PodFailure.class,
      names = {"IMAGE_PULL_BACKOFF", "CRASH_LOOP_BACKOFF"})
  void failingPodsMakeTheWebServiceDegradedWithTheKubeletsReason(PodFailure failure) {
    String image =
        "registry.example.com/failing-" + failure.name().toLowerCase().replace('_', '-') + ":1";
    ControlPlaneExtension.kubelet().fail(image, failure);
    String name = "broken-" + failure.ordinal();
    OPERATOR.create(webService(name, image, 1));
    String reason =
        failure == PodFailure.IMAGE_PULL_BACKOFF ? "ImagePullBackOff" : "CrashLoopBackOff";
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Condition degraded = condition(name, "Degraded");
              assertThat(degraded.getStatus()).isEqualTo("True");
              assertThat(degraded.getReason()).isEqualTo(reason);
              assertThat(degraded.getMessage()).contains("container app").contains(reason);
              Condition ready = condition(name, "Ready");
              assertThat(ready.getStatus()).isEqualTo("False");
              assertThat(ready.getReason()).isEqualTo(reason);
            });
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(events(name))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo(reason);
                        }));
  }

  @Test
  void aStalledRolloutIsReportedWhenTheDeploymentControllerGivesUp() {
    String image = "registry.example.com/never-ready:1";
    ControlPlaneExtension.kubelet().fail(image, PodFailure.NEVER_READY);
    WebService ws = webService("stalled", image, 1);
    ws.getSpec().setProgressDeadlineSeconds(10);
    OPERATOR.create(ws);
    // The pods run but never pass readiness: no container reason, so only the real deployment
    // controller's deadline can tell the user what is wrong.
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Condition degraded = condition("stalled", "Degraded");
              assertThat(degraded.getStatus()).isEqualTo("True");
              assertThat(degraded.getReason()).isEqualTo("ProgressDeadlineExceeded");
              assertThat(degraded.getMessage()).contains("no progress for 10s");
              assertThat(condition("stalled", "Progressing").getReason())
                  .isEqualTo("ProgressDeadlineExceeded");
              assertThat(condition("stalled", "Ready").getStatus()).isEqualTo("False");
            });
  }

  @Test
  void deletedServiceAndHandEditedDeploymentArePutBack() {
    OPERATOR.create(webService("drift", "registry.example.com/drift:1.0", 1));
    awaitReady("drift");
    String serviceUid = OPERATOR.get(Service.class, "drift").getMetadata().getUid();

    OPERATOR
        .getKubernetesClient()
        .services()
        .inNamespace(OPERATOR.getNamespace())
        .withName("drift")
        .delete();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Service service = OPERATOR.get(Service.class, "drift");
              assertThat(service).isNotNull();
              assertThat(service.getMetadata().getUid()).isNotEqualTo(serviceUid);
            });

    // A person edits the image and the replica count by hand (another field manager).
    Edits.edit(
        OPERATOR
            .getKubernetesClient()
            .apps()
            .deployments()
            .inNamespace(OPERATOR.getNamespace())
            .withName("drift"),
        d ->
            new DeploymentBuilder(d)
                .editSpec()
                .withReplicas(4)
                .editTemplate()
                .editSpec()
                .editContainer(0)
                .withImage("registry.example.com/hacked:6.6.6")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build());
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Deployment d = OPERATOR.get(Deployment.class, "drift");
              assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
                  .isEqualTo("registry.example.com/drift:1.0");
              assertThat(d.getSpec().getReplicas()).isEqualTo(1);
            });
    awaitReady("drift");
  }

  @Test
  void deletingTheWebServiceLeavesNothingBehind() {
    OPERATOR.create(webService("gone", "registry.example.com/gone:1.0", 2));
    awaitReady("gone");
    OPERATOR.delete(get("gone"));
    // The real garbage collector removes the children through their owner references.
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(OPERATOR.get(Deployment.class, "gone")).isNull();
              assertThat(OPERATOR.get(Service.class, "gone")).isNull();
              assertThat(
                      OPERATOR
                          .resources(io.fabric8.kubernetes.api.model.Pod.class)
                          .withLabel(Labels.INSTANCE, "gone")
                          .list()
                          .getItems())
                  .isEmpty();
            });
  }

  @Test
  void semanticallyInvalidSpecIsReportedOnceAndCreatesNothing() {
    WebService ws = webService("invalid", "registry.example.com/invalid:1.0", 1);
    ws.getSpec().getPorts().get(0).setNodePort(30080); // ClusterIP service: nodePort not allowed
    OPERATOR.create(ws);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Condition ready = condition("invalid", "Ready");
              assertThat(ready.getStatus()).isEqualTo("False");
              assertThat(ready.getReason()).isEqualTo("InvalidSpec");
              assertThat(ready.getMessage()).contains("nodePort needs spec.service.type NodePort");
            });
    assertThat(events("invalid"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getReason()).isEqualTo("InvalidSpec");
            });
    // No retry loop: nothing happens until the user changes the spec. Counted for this WebService
    // only: the stalled ones of other tests are looked at again meanwhile (RolloutStall).
    int reconciles = RECONCILES.count("invalid");
    observeFor(Duration.ofSeconds(3));
    assertThat(RECONCILES.count("invalid") - reconciles).as("reconciles of invalid").isZero();
    assertThat(OPERATOR.get(Deployment.class, "invalid")).isNull();
    assertThat(OPERATOR.get(Service.class, "invalid")).isNull();

    edit(
        "invalid",
        s -> {
          s.getPorts().get(0).setNodePort(null);
          return s;
        });
    awaitReady("invalid");
  }

  @Test
  void anObjectSomeoneElseOwnsIsNeverTakenOver() {
    Deployment foreign =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName("taken")
            .endMetadata()
            .withNewSpec()
            .withReplicas(1)
            .withNewSelector()
            .addToMatchLabels("app", "theirs")
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", "theirs")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withImage("theirs:1")
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();
    OPERATOR.create(foreign);
    OPERATOR.create(webService("taken", "registry.example.com/mine:1.0", 1));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Condition ready = condition("taken", "Ready");
              assertThat(ready.getReason()).isEqualTo("ResourceConflict");
              assertThat(ready.getMessage()).contains("Deployment taken already exists");
            });
    Deployment after = OPERATOR.get(Deployment.class, "taken");
    assertThat(after.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("theirs:1");
    assertThat(after.getMetadata().getOwnerReferences()).isEmpty();
  }

  @Test
  void autoscalingHandsReplicasToAnAutoscalerAndTakesThemBack() {
    WebService ws = webService("elastic", "registry.example.com/elastic:1.0", 1);
    Autoscaling autoscaling = new Autoscaling();
    autoscaling.setMinReplicas(2);
    autoscaling.setMaxReplicas(5);
    ws.getSpec().setAutoscaling(autoscaling);
    OPERATOR.create(ws);
    awaitReady("elastic");
    var hpa =
        OPERATOR
            .getKubernetesClient()
            .autoscaling()
            .v1()
            .horizontalPodAutoscalers()
            .inNamespace(OPERATOR.getNamespace())
            .withName("elastic")
            .get();
    assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(2);
    assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(5);
    assertThat(OPERATOR.get(Deployment.class, "elastic").getSpec().getReplicas()).isEqualTo(2);

    edit(
        "elastic",
        s -> {
          s.setAutoscaling(null);
          s.setReplicas(1);
          return s;
        });
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(
                      OPERATOR
                          .getKubernetesClient()
                          .autoscaling()
                          .v1()
                          .horizontalPodAutoscalers()
                          .inNamespace(OPERATOR.getNamespace())
                          .withName("elastic")
                          .get())
                  .isNull();
              assertThat(OPERATOR.get(Deployment.class, "elastic").getSpec().getReplicas())
                  .isEqualTo(1);
            });
    awaitReady("elastic");
  }

  @Test
  void everyPodFieldReachesTheDeploymentAndItsPods() {
    OPERATOR.create(
        new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
            .withNewMetadata()
            .withName("podspec-runner")
            .endMetadata()
            .build());
    OPERATOR.create(
        fromYaml(
            "podspec",
            """
            image: registry.example.com/podspec:1.0
            replicas: 2
            ports: [{port: 80, containerPort: 8080}]
            podLabels: {team: payments}
            podAnnotations: {prometheus.io/scrape: "true"}
            serviceAccountName: podspec-runner
            imagePullSecrets: [{name: registry-creds}]
            nodeSelector: {kubernetes.io/os: linux}
            tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}]
            affinity:
              podAntiAffinity:
                preferredDuringSchedulingIgnoredDuringExecution:
                  - weight: 100
                    podAffinityTerm:
                      topologyKey: kubernetes.io/hostname
                      labelSelector: {matchLabels: {app.kubernetes.io/instance: podspec}}
            topologySpreadConstraints:
              - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
            volumes:
              - {name: config, configMap: {name: podspec-config, optional: true}}
              - {name: creds, secret: {secretName: podspec-creds, optional: true}}
              - {name: scratch, emptyDir: {sizeLimit: 64Mi}}
              - {name: data, persistentVolumeClaim: {claimName: podspec-data}}
            volumeMounts:
              - {name: config, mountPath: /etc/podspec, readOnly: true}
              - {name: creds, mountPath: /var/run/creds}
              - {name: scratch, mountPath: /tmp}
              - {name: data, mountPath: /data}
            startupProbe: {tcpSocket: {}, failureThreshold: 30}
            securityContext: {runAsUser: 1000, fsGroup: 2000, capabilities: {add: [NET_BIND_SERVICE]}}
            rollingUpdate: {maxSurge: 1, maxUnavailable: 1}
            terminationGracePeriodSeconds: 45
            lifecycle: {preStop: {exec: {command: [sleep, "5"]}}, postStart: {httpGet: {path: /warm}}}
            sidecars:
              - name: proxy
                image: registry.example.com/proxy:1
                ports: [{name: admin, containerPort: 9901}]
                readinessProbe: {httpGet: {path: /ready}}
                volumeMounts: [{name: config, mountPath: /etc/proxy}]
            initContainers:
              - {name: migrate, image: registry.example.com/migrate:1, command: [migrate, up]}
            """));
    awaitReady("podspec");

    // The real API server accepted every field in the Deployment and kept it.
    Deployment d = OPERATOR.get(Deployment.class, "podspec");
    assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge().getIntVal()).isEqualTo(1);
    assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
        .isEqualTo(1);
    var pods =
        OPERATOR
            .resources(io.fabric8.kubernetes.api.model.Pod.class)
            .withLabel(Labels.INSTANCE, "podspec")
            .list()
            .getItems();
    assertThat(pods).hasSize(2);
    for (var pod : pods) {
      assertThat(pod.getMetadata().getLabels()).containsEntry("team", "payments");
      assertThat(pod.getMetadata().getAnnotations()).containsEntry("prometheus.io/scrape", "true");
      var spec = pod.getSpec();
      assertThat(spec.getServiceAccountName()).isEqualTo("podspec-runner");
      assertThat(spec.getImagePullSecrets())
          .extracting(r -> r.getName())
          .contains("registry-creds");
      assertThat(spec.getNodeSelector()).containsEntry("kubernetes.io/os", "linux");
      assertThat(spec.getTolerations())
          .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("dedicated"));
      assertThat(spec.getAffinity().getPodAntiAffinity()).isNotNull();
      assertThat(spec.getTopologySpreadConstraints())
          .singleElement()
          .satisfies(
              c ->
                  assertThat(c.getLabelSelector().getMatchLabels())
                      .containsEntry(Labels.INSTANCE, "podspec"));
      assertThat(spec.getVolumes())
          .extracting(v -> v.getName())
          .contains("config", "creds", "scratch", "data");
      assertThat(spec.getSecurityContext().getFsGroup()).isEqualTo(2000L);
      var container = spec.getContainers().get(0);
      assertThat(container.getVolumeMounts())
          .extracting(m -> m.getMountPath())
          .contains("/etc/podspec", "/var/run/creds", "/tmp", "/data");
      assertThat(container.getStartupProbe().getTcpSocket().getPort().getStrVal())
          .isEqualTo("http");
      var sc = container.getSecurityContext();
      assertThat(sc.getRunAsNonRoot()).isTrue();
      assertThat(sc.getRunAsUser()).isEqualTo(1000L);
      assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
      assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
      assertThat(sc.getCapabilities().getAdd()).containsExactly("NET_BIND_SERVICE");
      assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
      assertThat(spec.getTerminationGracePeriodSeconds()).isEqualTo(45L);
      assertThat(container.getLifecycle().getPreStop().getExec().getCommand())
          .containsExactly("sleep", "5");
      assertThat(container.getLifecycle().getPostStart().getHttpGet().getPort().getStrVal())
          .isEqualTo("http");
      assertThat(spec.getContainers()).extracting(c -> c.getName()).containsExactly("app", "proxy");
      var proxy = spec.getContainers().get(1);
      assertThat(proxy.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("admin");
      assertThat(proxy.getSecurityContext()).isEqualTo(sc);
      assertThat(spec.getInitContainers())
          .singleElement()
          .satisfies(i -> assertThat(i.getCommand()).containsExactly("migrate", "up"));
    }
    assertThat(OPERATOR.get(Service.class, "podspec").getSpec().getPorts().get(0).getName())
        .isEqualTo("http");
  }

  @Test
  void aPodFieldTheServerWouldRefuseIsReportedAsInvalidSpecBeforeAnythingIsCreated() {
    OPERATOR.create(
        fromYaml(
            "badmount",
            """
            image: registry.example.com/badmount:1.0
            ports: [{port: 80}]
            volumeMounts: [{name: missing, mountPath: /data}]
            securityContext: {runAsUser: 0}
            """));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Condition ready = condition("badmount", "Ready");
              assertThat(ready.getReason()).isEqualTo("InvalidSpec");
              assertThat(ready.getMessage())
                  .contains("spec.volumeMounts[/data] mounts volume 'missing'")
                  .contains("runAsUser 0 is root; set runAsNonRoot: false");
            });
    assertThat(OPERATOR.get(Deployment.class, "badmount")).isNull();
    assertThat(OPERATOR.get(Service.class, "badmount")).isNull();
  }

  private io.fabric8.kubernetes.api.model.GenericKubernetesResource budget(String name) {
    var client = OPERATOR.getKubernetesClient();
    return client
        .genericKubernetesResources(
            dev.bosun.common.dependent.PodDisruptionBudgets.apiVersion(client),
            "PodDisruptionBudget")
        .inNamespace(OPERATOR.getNamespace())
        .withName(name)
        .get();
  }

  private io.fabric8.kubernetes.api.model.networking.v1.Ingress ingress(String name) {
    return OPERATOR
        .getKubernetesClient()
        .network()
        .v1()
        .ingresses()
        .inNamespace(OPERATOR.getNamespace())
        .withName(name)
        .get();
  }

  @Test
  void anIngressAndADisruptionBudgetComeAndGoWithTheSpec() {
    OPERATOR.create(
        fromYaml(
            "exposed",
            """
            image: registry.example.com/exposed:1.0
            replicas: 3
            ports: [{name: web, port: 80}, {name: api, port: 9000}]
            ingress:
              host: exposed.example.com
              className: nginx
              tlsSecretName: exposed-tls
              paths: [{path: /}, {path: /api, port: api}]
            """));
    WebService ready = awaitReady("exposed");
    assertThat(ready.getStatus().getUrl()).isEqualTo("https://exposed.example.com/");

    var ingress = ingress("exposed");
    assertThat(ingress.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(ready.getMetadata().getUid()));
    assertThat(ingress.getSpec().getIngressClassName()).isEqualTo("nginx");
    assertThat(ingress.getSpec().getTls().get(0).getSecretName()).isEqualTo("exposed-tls");
    assertThat(ingress.getSpec().getRules().get(0).getHttp().getPaths())
        .extracting(p -> p.getBackend().getService().getPort().getName())
        .containsExactly("web", "api");

    // Three replicas: a budget letting one Pod go at a time, owned by the WebService.
    var pdb = budget("exposed");
    assertThat(pdb).isNotNull();
    @SuppressWarnings("unchecked")
    var pdbSpec = (java.util.Map<String, Object>) pdb.getAdditionalProperties().get("spec");
    assertThat(pdbSpec).containsEntry("maxUnavailable", 1);
    assertThat(pdb.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(ready.getMetadata().getUid()));

    edit(
        "exposed",
        s -> {
          s.setIngress(null);
          s.getDisruptionBudget().setEnabled(false);
          return s;
        });
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(ingress("exposed")).isNull();
              assertThat(budget("exposed")).isNull();
            });
    assertThat(awaitReady("exposed").getStatus().getUrl())
        .isEqualTo("http://exposed." + OPERATOR.getNamespace() + ".svc:80");
  }

  @Test
  void oneReplicaGetsNoDisruptionBudget() {
    OPERATOR.create(webService("single", "registry.example.com/single:1.0", 1));
    awaitReady("single");
    assertThat(budget("single")).isNull();
    edit(
        "single",
        s -> {
          s.setReplicas(2);
          return s;
        });
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(budget("single")).isNotNull());
  }

  private static final String CANARY_SPEC =
      """
      image: registry.example.com/gray:1.0
      replicas: 4
      ports: [{port: 80}]
      rollout:
        canary:
          readyDeadlineSeconds: 30
          steps: [{weight: 25, pauseSeconds: 3}, {weight: 50, pauseSeconds: 3}]
      """;

  private dev.bosun.web.v1alpha1.webservicestatus.Rollout rollout(String name) {
    WebService ws = get(name);
    return ws.getStatus() == null ? null : ws.getStatus().getRollout();
  }

  /** The gray release's phase, null before the status records one. */
  private String phase(String name) {
    var r = rollout(name);
    return r == null ? null : r.getPhase();
  }

  private List<String> imagesBehindTheService(String name) {
    Service service = OPERATOR.get(Service.class, name);
    return OPERATOR
        .resources(io.fabric8.kubernetes.api.model.Pod.class)
        .withLabels(service.getSpec().getSelector())
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(
            p ->
                p.getStatus() != null
                    && p.getStatus().getConditions() != null
                    && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
        .map(p -> p.getSpec().getContainers().get(0).getImage())
        .sorted()
        .toList();
  }

  private void setImage(String name, String image) {
    edit(
        name,
        s -> {
          s.setImage(image);
          return s;
        });
  }

  @Test
  void aCanaryAdvancesStepByStepBehindTheSameServiceAndIsPromoted() {
    OPERATOR.create(fromYaml("gray", CANARY_SPEC));
    awaitReady("gray");
    // The first Deployment is no gray release.
    assertThat(OPERATOR.get(Deployment.class, "gray-canary")).isNull();
    String stableRevision =
        OPERATOR
            .get(Deployment.class, "gray")
            .getMetadata()
            .getAnnotations()
            .get(WebServiceOperator.REVISION);

    setImage("gray", "registry.example.com/gray:2.0");
    // Step 1: 25% of 4 replicas, one canary Pod beside three stable ones, all behind the Service.
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              var r = rollout("gray");
              assertThat(r).isNotNull();
              assertThat(r.getPhase()).isEqualTo("Progressing");
              assertThat(r.getStep()).isEqualTo(1);
              assertThat(r.getWeight()).isEqualTo(25);
              assertThat(r.getStableRevision()).isEqualTo(stableRevision);
              assertThat(r.getCanaryRevision()).isNotEqualTo(stableRevision);
              assertThat(imagesBehindTheService("gray"))
                  .containsExactly(
                      "registry.example.com/gray:1.0",
                      "registry.example.com/gray:1.0",
                      "registry.example.com/gray:1.0",
                      "registry.example.com/gray:2.0");
            });
    assertThat(condition("gray", "Ready").getReason()).isIn("CanaryRollout");
    // Step 2: 50%, two and two.
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(rollout("gray").getStep()).isEqualTo(2);
              assertThat(imagesBehindTheService("gray"))
                  .containsExactly(
                      "registry.example.com/gray:1.0",
                      "registry.example.com/gray:1.0",
                      "registry.example.com/gray:2.0",
                      "registry.example.com/gray:2.0");
            });
    // Promotion: the stable Deployment takes the new template on all replicas, the canary goes.
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("gray")).isEqualTo("Promoted");
              assertThat(OPERATOR.get(Deployment.class, "gray-canary")).isNull();
              assertThat(Conditions.isTrue(get("gray").getStatus().getConditions(), "Ready"))
                  .isTrue();
              assertThat(imagesBehindTheService("gray"))
                  .containsOnly("registry.example.com/gray:2.0")
                  .hasSize(4);
            });
    Deployment stable = OPERATOR.get(Deployment.class, "gray");
    assertThat(stable.getSpec().getReplicas()).isEqualTo(4);
    assertThat(stable.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.example.com/gray:2.0");
    assertThat(events("gray"))
        .extracting(Event::getReason)
        .contains("CanaryStarted", "CanaryStep", "CanaryPromoting", "CanaryPromoted");
  }

  @Test
  void aFailingCanaryAbortsByItselfAndTheStableVersionKeepsServing() {
    String bad = "registry.example.com/gray-crashing:2.0";
    ControlPlaneExtension.kubelet().fail("gray-crashing", PodFailure.CRASH_LOOP_BACKOFF);
    OPERATOR.create(fromYaml("grayfail", CANARY_SPEC));
    awaitReady("grayfail");

    setImage("grayfail", bad);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("grayfail")).isEqualTo("Aborted");
              Condition ready = condition("grayfail", "Ready");
              assertThat(ready.getReason()).isEqualTo("RolloutAborted");
              assertThat(ready.getMessage())
                  .contains("was rolled back: the canary's Pods fail")
                  .contains("CrashLoopBackOff")
                  .doesNotContain("Exception");
              assertThat(condition("grayfail", "Degraded").getStatus()).isEqualTo("True");
              assertThat(OPERATOR.get(Deployment.class, "grayfail-canary")).isNull();
              assertThat(imagesBehindTheService("grayfail"))
                  .containsOnly("registry.example.com/gray:1.0")
                  .hasSize(4);
            });
    assertThat(events("grayfail"))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("CanaryAborted");
              assertThat(e.getType()).isEqualTo("Warning");
            });
    Deployment stable = OPERATOR.get(Deployment.class, "grayfail");
    assertThat(stable.getSpec().getReplicas()).isEqualTo(4);
    assertThat(stable.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.example.com/gray:1.0");

    // Fixing the spec starts a new canary of the fixed revision.
    setImage("grayfail", "registry.example.com/gray:3.0");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("grayfail")).isEqualTo("Promoted");
              assertThat(imagesBehindTheService("grayfail"))
                  .containsOnly("registry.example.com/gray:3.0")
                  .hasSize(4);
            });
  }

  @Test
  void aCanaryNeverReadyWithinItsDeadlineIsAborted() {
    ControlPlaneExtension.kubelet().fail("gray-unready", PodFailure.NEVER_READY);
    OPERATOR.create(
        fromYaml(
            "grayslow",
            CANARY_SPEC.replace("readyDeadlineSeconds: 30", "readyDeadlineSeconds: 10")));
    awaitReady("grayslow");
    setImage("grayslow", "registry.example.com/gray-unready:2.0");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("grayslow")).isEqualTo("Aborted");
              assertThat(rollout("grayslow").getMessage())
                  .contains("the canary's Pods were not ready within 10s at step 1");
              assertThat(OPERATOR.get(Deployment.class, "grayslow-canary")).isNull();
            });
  }

  @Test
  void anAnnotationPromotesAPausedCanaryAndIsRemoved() {
    OPERATOR.create(
        fromYaml(
            "graymanual",
            CANARY_SPEC.replace(
                "steps: [{weight: 25, pauseSeconds: 3}, {weight: 50, pauseSeconds: 3}]",
                "steps: [{weight: 50, pauseSeconds: 86400}]")));
    awaitReady("graymanual");
    setImage("graymanual", "registry.example.com/gray:2.0");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("graymanual")).isEqualTo("Progressing");
              assertThat(rollout("graymanual").getCanaryReadyReplicas()).isEqualTo(2);
            });
    annotateRolloutAction("graymanual", "promote");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("graymanual")).isEqualTo("Promoted");
              assertThat(get("graymanual").getMetadata().getAnnotations())
                  .doesNotContainKey(WebServiceOperator.ROLLOUT_ACTION);
              assertThat(OPERATOR.get(Deployment.class, "graymanual-canary")).isNull();
            });
    assertThat(
            events("graymanual").stream()
                .filter(e -> "CanaryPromoting".equals(e.getReason()))
                .map(Event::getMessage))
        .anySatisfy(m -> assertThat(m).contains("promoted by the user"));
  }

  /** What {@code kubectl annotate ws <name> web.bosun.dev/rollout-action=<action>} does. */
  private void annotateRolloutAction(String name, String action) {
    editWebService(
        name,
        ws -> {
          var annotations = new java.util.HashMap<String, String>();
          if (ws.getMetadata().getAnnotations() != null) {
            annotations.putAll(ws.getMetadata().getAnnotations());
          }
          annotations.put(WebServiceOperator.ROLLOUT_ACTION, action);
          ws.getMetadata().setAnnotations(annotations);
          return ws;
        });
  }

  @Test
  void anAnnotationAbortsARunningCanaryAndTheStableVersionTakesAllReplicasBack() {
    OPERATOR.create(
        fromYaml(
            "grayabort",
            CANARY_SPEC.replace(
                "steps: [{weight: 25, pauseSeconds: 3}, {weight: 50, pauseSeconds: 3}]",
                "steps: [{weight: 50, pauseSeconds: 86400}]")));
    awaitReady("grayabort");
    setImage("grayabort", "registry.example.com/gray:2.0");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("grayabort")).isEqualTo("Progressing");
              assertThat(rollout("grayabort").getCanaryReadyReplicas()).isEqualTo(2);
            });
    annotateRolloutAction("grayabort", "abort");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase("grayabort")).isEqualTo("Aborted");
              assertThat(rollout("grayabort").getMessage()).contains("aborted by the user");
              assertThat(condition("grayabort", "Ready").getReason()).isEqualTo("RolloutAborted");
              assertThat(get("grayabort").getMetadata().getAnnotations())
                  .doesNotContainKey(WebServiceOperator.ROLLOUT_ACTION);
              assertThat(OPERATOR.get(Deployment.class, "grayabort-canary")).isNull();
              assertThat(imagesBehindTheService("grayabort"))
                  .containsOnly("registry.example.com/gray:1.0")
                  .hasSize(4);
            });
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"web.shop", "shop-with-a-name-that-is-far-too-long-for-a-service-to-carry-it-x"})
  void aNameTheServerAcceptsButAChildCannotCarryIsInvalidSpecBeforeAnythingIsCreated(String name) {
    OPERATOR.create(webService(name, "registry.example.com/named:1.0", 1));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Condition ready = condition(name, "Ready");
              assertThat(ready.getReason()).isEqualTo("InvalidSpec");
              assertThat(ready.getMessage())
                  .startsWith("invalid spec: metadata.name: the Service, Deployment and labels")
                  .contains("the Service name '" + name + "'")
                  .doesNotContain("Exception");
            });
    assertThat(OPERATOR.get(Deployment.class, name)).isNull();
    assertThat(OPERATOR.get(Service.class, name)).isNull();
  }

  @Test
  void aQuotaThatRefusesThePodsIsNamedAndReadyFollowsOnceItIsLifted() {
    // Scoped to Pods with requests (NotBestEffort): the other tests' Pods in this namespace have
    // none, so only this WebService is refused. The real ReplicaSet controller meets the refusal.
    var quota =
        new io.fabric8.kubernetes.api.model.ResourceQuotaBuilder()
            .withNewMetadata()
            .withName("no-guaranteed-pods")
            .endMetadata()
            .withNewSpec()
            .addToHard("pods", new io.fabric8.kubernetes.api.model.Quantity("0"))
            .withScopes("NotBestEffort")
            .endSpec()
            .build();
    var quotas = OPERATOR.resources(io.fabric8.kubernetes.api.model.ResourceQuota.class);
    quotas.resource(quota).create();
    try {
      // Until the quota controller has counted, admission refuses with "status unknown".
      await()
          .atMost(TIMEOUT)
          .until(() -> quotas.withName("no-guaranteed-pods").get().getStatus().getHard() != null);
      OPERATOR.create(
          fromYaml(
              "quota-web",
              """
              image: registry.example.com/quota-web:1.0
              replicas: 1
              ports: [{port: 80, containerPort: 8080}]
              resources: {requests: {cpu: 10m}}
              """));
      await()
          .atMost(TIMEOUT)
          .untilAsserted(
              () -> {
                Condition degraded = condition("quota-web", "Degraded");
                assertThat(degraded.getStatus()).isEqualTo("True");
                assertThat(degraded.getReason()).isEqualTo("PodCreationRefused");
                assertThat(degraded.getMessage())
                    .startsWith(
                        "no Pod can be created: ResourceQuota no-guaranteed-pods is used up")
                    .contains("limited: pods=0");
                assertThat(condition("quota-web", "Ready").getReason())
                    .isEqualTo("PodCreationRefused");
              });
    } finally {
      quotas.withName("no-guaranteed-pods").delete();
    }
    awaitReady("quota-web");
    assertThat(condition("quota-web", "Degraded").getStatus()).isEqualTo("False");
  }

  @Test
  void aVolumeTheKubeletCannotMountIsNamedFromItsEvent() {
    // The simulated kubelet cannot mount anything: its Pods run unready, and this test writes the
    // FailedMount Event a real kubelet writes when a ConfigMap volume's ConfigMap does not exist.
    String image = "registry.example.com/unmountable:1";
    ControlPlaneExtension.kubelet().fail(image, PodFailure.NEVER_READY);
    OPERATOR.create(
        fromYaml(
            "unmountable",
            """
            image: registry.example.com/unmountable:1
            replicas: 1
            ports: [{port: 80, containerPort: 8080}]
            volumes: [{name: config, configMap: {name: absent-config}}]
            volumeMounts: [{name: config, mountPath: /etc/app}]
            """));
    var pod =
        await()
            .atMost(TIMEOUT)
            .until(
                () ->
                    OPERATOR
                        .resources(io.fabric8.kubernetes.api.model.Pod.class)
                        .withLabel(Labels.INSTANCE, "unmountable")
                        .list()
                        .getItems(),
                pods -> !pods.isEmpty())
            .get(0);
    OPERATOR.create(
        new io.fabric8.kubernetes.api.model.EventBuilder()
            .withNewMetadata()
            .withName(pod.getMetadata().getName() + ".failedmount")
            .endMetadata()
            .withNewInvolvedObject()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace(OPERATOR.getNamespace())
            .withName(pod.getMetadata().getName())
            .withUid(pod.getMetadata().getUid())
            .endInvolvedObject()
            .withType("Warning")
            .withReason("FailedMount")
            .withMessage(
                "MountVolume.SetUp failed for volume \"config\" : configmap \"absent-config\" not"
                    + " found")
            .withNewSource("kubelet", dev.bosun.common.testing.KubeletSimulator.NODE_NAME)
            .withCount(1)
            .withFirstTimestamp(java.time.Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
            .withLastTimestamp(java.time.Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
            .build());
    long written = System.nanoTime();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              Condition degraded = condition("unmountable", "Degraded");
              assertThat(degraded.getReason()).isEqualTo("MissingConfigMap");
              assertThat(degraded.getMessage())
                  .isEqualTo(
                      "the Pods cannot start: ConfigMap absent-config does not exist (volume config"
                          + " of Pod "
                          + pod.getMetadata().getName()
                          + "); create it or fix the volume's reference");
            });
    // The Pods are read once the rollout has gone RolloutStall.GRACE without progress. The issue
    // asks for the reason within 10 s of the Pod's first Event; a real kubelet's Events carry whole
    // seconds, so one may look up to a second older than it is: 9 s leaves the real node its 10.
    long reportedMillis = (System.nanoTime() - written) / 1_000_000;
    System.out.printf(
        "MissingConfigMap reported %d ms after the FailedMount Event%n", reportedMillis);
    assertThat(reportedMillis).as("ms from the FailedMount Event to the status").isLessThan(9_000);
    assertThat(events("unmountable"))
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("MissingConfigMap"));
  }

  @Test
  void memoryAndCustomMetricsAutoscaleThroughTheVersionTheServerServes() {
    OPERATOR.create(
        fromYaml(
            "metered",
            """
            image: registry.example.com/metered:1.0
            ports: [{port: 80, containerPort: 8080}]
            resources: {requests: {cpu: 100m, memory: 128Mi}}
            autoscaling:
              minReplicas: 2
              maxReplicas: 6
              targetMemoryUtilizationPercentage: 70
              customMetrics: [{name: http_requests_per_second, averageValue: "100"}]
            """));
    awaitReady("metered");
    // The 1.20 API server serves autoscaling/v2beta2 and no v2: the operator asked which.
    assertThat(MetricAutoscalers.apiVersion(OPERATOR_CLIENT)).isEqualTo(MetricAutoscalers.V2BETA2);
    var autoscalers =
        OPERATOR.getKubernetesClient().autoscaling().v2beta2().horizontalPodAutoscalers();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              var hpa = autoscalers.inNamespace(OPERATOR.getNamespace()).withName("metered").get();
              assertThat(hpa).isNotNull();
              assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(2);
              assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(6);
              assertThat(hpa.getSpec().getMetrics())
                  .extracting(
                      m ->
                          m.getResource() != null
                              ? m.getResource().getName()
                                  + "="
                                  + m.getResource().getTarget().getAverageUtilization()
                              : m.getPods().getMetric().getName()
                                  + "="
                                  + m.getPods().getTarget().getAverageValue())
                  // A 1.20 server stores autoscaling/v1 (the others in an annotation): it reorders.
                  .containsExactlyInAnyOrder("cpu=80", "memory=70", "http_requests_per_second=100");
              assertThat(hpa.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(o -> assertThat(o.getKind()).isEqualTo("WebService"));
            });
    assertThat(OPERATOR.get(Deployment.class, "metered").getSpec().getReplicas()).isEqualTo(2);

    // Converged: the HPA controller's status updates bring reconciles, but no write.
    observeFor(Duration.ofSeconds(2));
    int writes = WRITES.count();
    observeFor(Duration.ofSeconds(6));
    assertThat(WRITES.since(writes)).as("writes while converged").isEmpty();

    // Back to CPU alone: the same object, its metrics replaced (a v1 apply would keep them).
    edit(
        "metered",
        s -> {
          s.getAutoscaling().setTargetMemoryUtilizationPercentage(null);
          s.getAutoscaling().setCustomMetrics(null);
          return s;
        });
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(
                        autoscalers
                            .inNamespace(OPERATOR.getNamespace())
                            .withName("metered")
                            .get()
                            .getSpec()
                            .getMetrics())
                    .singleElement()
                    .satisfies(m -> assertThat(m.getResource().getName()).isEqualTo("cpu")));

    edit(
        "metered",
        s -> {
          s.setAutoscaling(null);
          return s;
        });
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                autoscalers.inNamespace(OPERATOR.getNamespace()).withName("metered").get() == null);
  }

  @Test
  void theCanaryJudgeAbortsOnErrorsAndSlownessAndPromotesAGoodCanary() throws Exception {
    // The simulated Pods' IPs lead nowhere: the checks of this test's Pods go to two loopback
    // servers on one port, the stable revision's on 127.0.0.2 and the canary's on 127.0.0.3.
    try (var servers = AnswerServers.start()) {
      OPERATOR.create(
          fromYaml(
              "judged",
              """
              image: registry.example.com/judged:1.0
              replicas: 2
              ports: [{port: 80, containerPort: %d}]
              rollout:
                canary:
                  steps: [{weight: 50, pauseSeconds: 1}]
                  analysis:
                    http: {path: /, samplesPerStep: 10, requestsPerSecond: 10, latencyBoundMillis: 5000}
              """
                  .formatted(servers.port())));
      awaitReady("judged");

      servers.canaryAnswers(AnswerServers.Mode.HALF_ERRORS);
      setImage("judged", "registry.example.com/judged:2.0");
      awaitAbortedWith(
          "judged",
          "the canary answers worse than the stable revision: success rate 50% (5 of 10)");

      servers.canaryAnswers(AnswerServers.Mode.SLOW);
      setImage("judged", "registry.example.com/judged:3.0");
      awaitAbortedWith("judged", "the canary answers slower than the stable revision");
      assertThat(condition("judged", "Ready").getMessage()).contains("median latency 2");

      servers.canaryAnswers(AnswerServers.Mode.GOOD);
      setImage("judged", "registry.example.com/judged:4.0");
      await()
          .atMost(TIMEOUT)
          .untilAsserted(() -> assertThat(phase("judged")).isEqualTo("Promoted"));
      awaitReady("judged");
      assertThat(imagesBehindTheService("judged"))
          .containsOnly("registry.example.com/judged:4.0")
          .hasSize(2);
      // Bounded: 10 requests to each revision per step, three steps judged.
      assertThat(servers.requests()).isBetween(60, 60 + 20);
    }
  }

  @Test
  void aDeletedWebServicesCanaryChecksStopAtOnce() throws Exception {
    try (var servers = AnswerServers.start()) {
      OPERATOR.create(
          fromYaml(
              "dropped",
              """
              image: registry.example.com/dropped:1.0
              replicas: 2
              ports: [{port: 80, containerPort: %d}]
              rollout:
                canary:
                  steps: [{weight: 50, pauseSeconds: 600}]
                  analysis:
                    http: {path: /, samplesPerStep: 1000, requestsPerSecond: 5}
              """
                  .formatted(servers.port())));
      awaitReady("dropped");
      setImage("dropped", "registry.example.com/dropped:2.0");
      String key = CanaryChecks.key(get("dropped"));
      await().atMost(TIMEOUT).until(() -> SAMPLER.tracks(key) && servers.requests() > 0);

      OPERATOR.delete(get("dropped"));

      // No reconcile follows a deletion (no finalizer): the checks stop on the deletion event.
      await().atMost(Duration.ofSeconds(10)).until(() -> !SAMPLER.tracks(key));
      int sent = servers.requests();
      observeFor(Duration.ofSeconds(2));
      // At most the requests in flight and one tick under way (two each); running on, 20.
      assertThat(servers.requests() - sent)
          .as("requests after the deletion")
          .isLessThanOrEqualTo(4);
    }
  }

  private void awaitAbortedWith(String name, String numbers) {
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(phase(name)).isEqualTo("Aborted");
              assertThat(condition(name, "Degraded").getReason()).isEqualTo("RolloutAborted");
              assertThat(condition(name, "Ready").getMessage()).contains(numbers);
              assertThat(OPERATOR.get(Deployment.class, name + "-canary")).isNull();
              assertThat(OPERATOR.get(Deployment.class, name).getSpec().getReplicas()).isEqualTo(2);
            });
    assertThat(events(name))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("CanaryAborted");
              assertThat(e.getMessage()).contains(numbers);
            });
  }

  @Test
  void aConvergedWebServiceCausesNoWritesAndNoReconciles() {
    OPERATOR.create(webService("idle", "registry.example.com/idle:1.0", 2));
    awaitReady("idle");
    // Let the last pod and deployment status events drain.
    observeFor(Duration.ofSeconds(2));
    int writes = WRITES.count();
    // Counted for this WebService only: the broken ones of other tests are looked at again while
    // their rollouts stay stalled (RolloutStall).
    int reconciles = RECONCILES.count("idle");
    observeFor(Duration.ofSeconds(12));
    assertThat(WRITES.since(writes)).as("writes while idle").isEmpty();
    assertThat(RECONCILES.count("idle") - reconciles).as("reconciles while idle").isZero();
  }
}
