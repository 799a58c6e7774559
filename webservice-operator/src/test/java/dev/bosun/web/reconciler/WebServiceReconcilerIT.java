package dev.bosun.web.reconciler;

import static dev.bosun.web.WebServices.webService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.PodFailure;
import dev.bosun.common.testing.ReconcileCounter;
import dev.bosun.common.testing.WriteCounter;
import dev.bosun.web.WebServiceOperator;
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
              new WebServiceReconciler(new EventRecorder(OPERATOR_CLIENT, WebServiceOperator.NAME)))
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
    return OPERATOR
        .resources(WebService.class)
        .withName(name)
        .edit(
            ws -> {
              ws.setSpec(change.apply(ws.getSpec()));
              return ws;
            });
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
    assertThat(events("shop")).anySatisfy(e -> assertThat(e.getReason()).isEqualTo("Ready"));
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
    OPERATOR
        .getKubernetesClient()
        .apps()
        .deployments()
        .inNamespace(OPERATOR.getNamespace())
        .withName("drift")
        .edit(
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
    // No retry loop: nothing happens until the user changes the spec.
    int reconciles = RECONCILES.count();
    observeFor(Duration.ofSeconds(3));
    assertThat(RECONCILES.count() - reconciles).isZero();
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
  void aConvergedWebServiceCausesNoWritesAndNoReconciles() {
    OPERATOR.create(webService("idle", "registry.example.com/idle:1.0", 2));
    awaitReady("idle");
    // Let the last pod and deployment status events drain.
    observeFor(Duration.ofSeconds(2));
    int writes = WRITES.count();
    int reconciles = RECONCILES.count();
    observeFor(Duration.ofSeconds(10));
    assertThat(WRITES.since(writes)).as("writes while idle").isEmpty();
    assertThat(RECONCILES.count() - reconciles).as("reconciles while idle").isZero();
  }
}
