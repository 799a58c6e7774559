package dev.bosun.web.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.StatusEquality;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WebServiceStatusAggregatorTest {

  private static final String T0 = "2024-05-01T10:00:00Z";
  private static final String T1 = "2024-05-01T10:07:00Z";
  private static final WebServiceStatusAggregator AT_T0 =
      new WebServiceStatusAggregator(Clock.fixed(Instant.parse(T0), ZoneOffset.UTC));
  private static final WebServiceStatusAggregator AT_T1 =
      new WebServiceStatusAggregator(Clock.fixed(Instant.parse(T1), ZoneOffset.UTC));

  private static final String SELECTOR =
      "app.kubernetes.io/name=webservice,app.kubernetes.io/instance=shop,"
          + "app.kubernetes.io/component=server";

  // --- no Deployment yet ---

  @Test
  void noDeploymentIsBeingCreated() {
    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.empty(), Optional.empty(), List.of());

    assertCondition(status, "Ready", "False", "Creating");
    assertCondition(status, "Available", "False", "DeploymentMissing");
    assertCondition(status, "Progressing", "True", "RollingOut");
    assertCondition(status, "Degraded", "False", "AsExpected");
    assertThat(status.getObservedGeneration()).isEqualTo(4L);
    assertThat(status.getReplicas()).isZero();
    assertThat(status.getReadyReplicas()).isZero();
    assertThat(status.getUpdatedReplicas()).isZero();
    assertThat(status.getAvailableReplicas()).isZero();
    assertThat(status.getUrl()).isNull();
    assertThat(status.getSelector()).isEqualTo(SELECTOR);
  }

  @Test
  void conditionsComeInTheFixedOrderStampedWithTheGeneration() {
    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.empty(), Optional.empty(), List.of());

    assertThat(status.getConditions())
        .extracting(Condition::getType)
        .containsExactly("Ready", "Available", "Progressing", "Degraded");
    assertThat(status.getConditions())
        .extracting(Condition::getObservedGeneration)
        .containsOnly(4L);
    assertThat(status.getConditions())
        .extracting(Condition::getLastTransitionTime)
        .containsOnly(T0);
  }

  // --- a finished rollout ---

  @Test
  void aCompleteRolloutIsReady() {
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(complete(4, 3)),
            Optional.of(clusterIpService(80, "http")),
            List.of(runningPod("shop-a")));

    assertCondition(status, "Ready", "True", "Ready");
    assertCondition(status, "Available", "True", "MinimumReplicasAvailable");
    assertCondition(status, "Progressing", "False", "RolloutComplete");
    assertCondition(status, "Degraded", "False", "AsExpected");
    assertThat(condition(status, "Ready").getMessage()).contains("3");
    assertThat(status.getObservedGeneration()).isEqualTo(4L);
    assertThat(status.getReplicas()).isEqualTo(3);
    assertThat(status.getReadyReplicas()).isEqualTo(3);
    assertThat(status.getUpdatedReplicas()).isEqualTo(3);
    assertThat(status.getAvailableReplicas()).isEqualTo(3);
    assertThat(status.getUrl()).isEqualTo("http://shop.prod.svc:80");
    assertThat(status.getSelector()).isEqualTo(SELECTOR);
  }

  @Test
  void theDeploymentsReplicaCountIsTheDesiredOne() {
    // The autoscaler set 5 replicas although the spec says 3: 5 of 5 is a finished rollout.
    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.of(complete(4, 5)), Optional.empty(), List.of());

    assertCondition(status, "Ready", "True", "Ready");
    assertThat(status.getReplicas()).isEqualTo(5);
  }

  @Test
  void scaledToZeroIsReady() {
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(2, 0),
            Optional.of(deployment(2, 1, 1, 0, 0, 0, 0, 0, available("True"))),
            Optional.empty(),
            List.of());

    assertCondition(status, "Ready", "True", "Ready");
    assertCondition(status, "Available", "True", "MinimumReplicasAvailable");
  }

  // --- not (yet) the latest spec ---

  @Test
  void aDeploymentBuiltFromAnOlderSpecIsNotReadyEvenIfItsCountsMatch() {
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(5, 3),
            Optional.of(deployment(4, 1, 1, 3, 3, 3, 3, 3, available("True"))),
            Optional.empty(),
            List.of());

    assertCondition(status, "Ready", "False", "RollingOut");
    assertCondition(status, "Progressing", "True", "RollingOut");
    assertCondition(status, "Degraded", "False", "AsExpected");
  }

  @Test
  void aDeploymentWithoutTheAnnotationIsNotReady() {
    Deployment unannotated =
        new DeploymentBuilder(complete(4, 3))
            .editMetadata()
            .withAnnotations(new HashMap<>())
            .endMetadata()
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.of(unannotated), Optional.empty(), List.of());

    assertCondition(status, "Ready", "False", "RollingOut");
  }

  @Test
  void aDeploymentTheControllerHasNotObservedYetIsNotReady() {
    // Our annotation is current but the Deployment controller still reports generation 1 of 2.
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 1, 3, 3, 3, 3, 3, available("True"))),
            Optional.empty(),
            List.of());

    assertCondition(status, "Ready", "False", "RollingOut");
    assertCondition(status, "Progressing", "True", "RollingOut");
  }

  // --- mid-rollout ---

  @Test
  void fewerUpdatedThanDesiredIsRollingOut() {
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 3, 1, 3, 3, available("True"))),
            Optional.empty(),
            List.of());

    assertCondition(status, "Ready", "False", "RollingOut");
    assertCondition(status, "Progressing", "True", "RollingOut");
    assertCondition(status, "Available", "True", "MinimumReplicasAvailable");
    assertThat(condition(status, "Progressing").getMessage())
        .isEqualTo("1 of 3 replicas updated, 3 ready, 3 in total");
    assertThat(condition(status, "Ready").getMessage())
        .isEqualTo("1 of 3 replicas updated, 3 ready, 3 in total");
    assertThat(status.getUpdatedReplicas()).isEqualTo(1);
  }

  @Test
  void oldPodsStillRunningIsRollingOut() {
    // All 3 new pods are up, but one old pod is left: 4 replicas in total.
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 4, 3, 3, 3, available("True"))),
            Optional.empty(),
            List.of());

    assertCondition(status, "Ready", "False", "RollingOut");
    assertCondition(status, "Progressing", "True", "RollingOut");
    assertThat(status.getReplicas()).isEqualTo(4);
  }

  @Test
  void newPodsNotReadyYetIsRollingOut() {
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 3, 3, 2, 2, available("True"))),
            Optional.empty(),
            List.of());

    assertCondition(status, "Ready", "False", "RollingOut");
    assertCondition(status, "Progressing", "True", "RollingOut");
  }

  @Test
  void noAvailablePodIsUnavailable() {
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(1, 2),
            Optional.of(deployment(1, 1, 1, 2, 2, 2, 0, 0, available("False"))),
            Optional.empty(),
            List.of());

    assertCondition(status, "Available", "False", "MinimumReplicasUnavailable");
    assertThat(condition(status, "Available").getMessage()).isEqualTo("0 of 2 replicas available");
    assertCondition(status, "Ready", "False", "RollingOut");
  }

  // --- pods that need a person ---

  @Test
  void imagePullBackOffIsDegraded() {
    Pod pod = waitingPod("shop-7d9f-abcde", "app", "ImagePullBackOff", "Back-off pulling image");

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 4, 1, 3, 3, available("True"))),
            Optional.empty(),
            List.of(runningPod("shop-aaaa-00000"), pod));

    assertCondition(status, "Degraded", "True", "ImagePullBackOff");
    assertThat(condition(status, "Degraded").getMessage())
        .contains("shop-7d9f-abcde")
        .contains("app")
        .contains("Back-off pulling image");
    assertCondition(status, "Ready", "False", "ImagePullBackOff");
    assertThat(condition(status, "Ready").getMessage())
        .isEqualTo(condition(status, "Degraded").getMessage());
    assertCondition(status, "Progressing", "True", "RollingOut");
  }

  @Test
  void crashLoopIsDegradedWithTheLastExitCode() {
    Pod pod =
        new PodBuilder(waitingPod("shop-1", "app", "CrashLoopBackOff", "back-off 5m0s"))
            .editStatus()
            .editFirstContainerStatus()
            .withNewLastState()
            .withNewTerminated()
            .withExitCode(137)
            .endTerminated()
            .endLastState()
            .endContainerStatus()
            .endStatus()
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3), Optional.of(complete(4, 3)), Optional.empty(), List.of(pod));

    assertCondition(status, "Degraded", "True", "CrashLoopBackOff");
    assertThat(condition(status, "Degraded").getMessage())
        .isEqualTo(
            "pod shop-1, container app: CrashLoopBackOff: back-off 5m0s (last exit code 137)");
    // Counts alone would say ready: the crash loop wins.
    assertCondition(status, "Ready", "False", "CrashLoopBackOff");
  }

  @Test
  void theFirstPodByNameIsReported() {
    List<Pod> pods =
        List.of(
            waitingPod("shop-c", "app", "CrashLoopBackOff", null),
            runningPod("shop-a"),
            waitingPod("shop-b", "app", "ErrImagePull", null));

    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.of(complete(4, 3)), Optional.empty(), pods);

    assertCondition(status, "Degraded", "True", "ErrImagePull");
    assertThat(condition(status, "Degraded").getMessage())
        .isEqualTo("pod shop-b, container app: ErrImagePull");
  }

  @Test
  void terminatingPodsAreIgnored() {
    Pod leaving =
        new PodBuilder(waitingPod("shop-old", "app", "CrashLoopBackOff", null))
            .editMetadata()
            .withDeletionTimestamp("2024-05-01T09:59:00Z")
            .endMetadata()
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3), Optional.of(complete(4, 3)), Optional.empty(), List.of(leaving));

    assertCondition(status, "Degraded", "False", "AsExpected");
    assertCondition(status, "Ready", "True", "Ready");
  }

  @Test
  void waitingThatFixesItselfIsNotDegraded() {
    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 3, 2, 2, 2, available("True"))),
            Optional.empty(),
            List.of(
                waitingPod("shop-new", "app", "ContainerCreating", null),
                new PodBuilder().withNewMetadata().withName("shop-pending").endMetadata().build()));

    assertCondition(status, "Degraded", "False", "AsExpected");
    assertCondition(status, "Ready", "False", "RollingOut");
  }

  // --- the Deployment controller gave up ---

  @Test
  void progressDeadlineExceeded() {
    DeploymentCondition deadline =
        new DeploymentConditionBuilder()
            .withType("Progressing")
            .withStatus("False")
            .withReason("ProgressDeadlineExceeded")
            .withMessage("ReplicaSet \"shop-7d9f\" has timed out progressing.")
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 4, 1, 3, 3, available("True"), deadline)),
            Optional.empty(),
            List.of());

    assertCondition(status, "Progressing", "False", "ProgressDeadlineExceeded");
    assertThat(condition(status, "Progressing").getMessage())
        .isEqualTo("ReplicaSet \"shop-7d9f\" has timed out progressing.");
    assertCondition(status, "Degraded", "True", "ProgressDeadlineExceeded");
    assertThat(condition(status, "Degraded").getMessage())
        .contains("600s")
        .contains("has timed out progressing");
    assertCondition(status, "Ready", "False", "ProgressDeadlineExceeded");
  }

  @Test
  void aPodProblemExplainsMoreThanTheDeadline() {
    DeploymentCondition deadline =
        new DeploymentConditionBuilder()
            .withType("Progressing")
            .withStatus("False")
            .withReason("ProgressDeadlineExceeded")
            .withMessage("timed out")
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 4, 1, 3, 3, available("True"), deadline)),
            Optional.empty(),
            List.of(waitingPod("shop-x", "app", "ImagePullBackOff", null)));

    assertCondition(status, "Progressing", "False", "ProgressDeadlineExceeded");
    assertCondition(status, "Degraded", "True", "ImagePullBackOff");
    assertCondition(status, "Ready", "False", "ImagePullBackOff");
  }

  @Test
  void replicaFailureIsDegraded() {
    DeploymentCondition failure = replicaFailure("pods \"shop-x\" is forbidden: exceeded quota");

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 2, 2, 3, 2, 2, 2, 2, available("True"), failure)),
            Optional.empty(),
            List.of());

    assertCondition(status, "Degraded", "True", "PodCreationRefused");
    assertThat(condition(status, "Degraded").getMessage()).contains("exceeded quota");
    assertCondition(status, "Ready", "False", "PodCreationRefused");
  }

  @Test
  void aMissingServiceAccountIsNamedInDegradedAndReady() {
    DeploymentCondition failure =
        replicaFailure(
            "pods \"shop-x-\" is forbidden: error looking up service account team-a/runner:"
                + " serviceaccount \"runner\" not found");

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 0, 0, 3, 0, 0, 0, 0, available("False"), failure)),
            Optional.empty(),
            List.of());

    assertCondition(status, "Degraded", "True", "MissingServiceAccount");
    assertCondition(status, "Ready", "False", "MissingServiceAccount");
    assertThat(condition(status, "Ready").getMessage()).contains("ServiceAccount runner");
  }

  @Test
  void aVolumeThatCannotMountIsDegradedFromTheKubeletsEvent() {
    Pod creating = waitingPod("shop-x", "app", "ContainerCreating", null);
    var event =
        new io.fabric8.kubernetes.api.model.EventBuilder()
            .withNewInvolvedObject()
            .withKind("Pod")
            .withName("shop-x")
            .endInvolvedObject()
            .withReason("FailedMount")
            .withMessage(
                "MountVolume.SetUp failed for volume \"config\" : configmap \"shop-config\""
                    + " not found")
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 1, 1, 3, 1, 1, 1, 1, available("False"))),
            Optional.empty(),
            List.of(creating),
            List.of(event),
            Optional.empty());

    assertCondition(status, "Degraded", "True", "MissingConfigMap");
    assertThat(condition(status, "Degraded").getMessage())
        .isEqualTo(
            "the Pods cannot start: ConfigMap shop-config does not exist (volume config of Pod"
                + " shop-x); create it or fix the volume's reference");
    assertCondition(status, "Ready", "False", "MissingConfigMap");
  }

  @Test
  void aPodsOwnStatusComesBeforeTheReplicaSetsRefusalAndTheEvents() {
    DeploymentCondition failure =
        replicaFailure("pods \"shop-x\" is forbidden: exceeded quota: q, requested: pods=1");
    Pod configError =
        waitingPod("shop-x", "app", "CreateContainerConfigError", "secret \"creds\" not found");

    WebServiceStatus status =
        AT_T0.aggregate(
            webService(4, 3),
            Optional.of(deployment(4, 1, 1, 3, 0, 0, 0, 0, available("False"), failure)),
            Optional.empty(),
            List.of(configError));

    assertCondition(status, "Degraded", "True", "MissingSecret");
  }

  // --- the URL ---

  @Test
  void loadBalancerIngressIpIsTheUrl() {
    Service lb =
        new ServiceBuilder(clusterIpService(80, "http"))
            .editSpec()
            .withType("LoadBalancer")
            .endSpec()
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("203.0.113.7")
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.of(complete(4, 3)), Optional.of(lb), List.of());

    assertThat(status.getUrl()).isEqualTo("http://203.0.113.7:80");
  }

  @Test
  void loadBalancerIngressHostnameIsPreferred() {
    Service lb =
        new ServiceBuilder(clusterIpService(443, "https"))
            .editSpec()
            .withType("LoadBalancer")
            .endSpec()
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withHostname("shop.example.com")
            .withIp("203.0.113.7")
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.of(complete(4, 3)), Optional.of(lb), List.of());

    assertThat(status.getUrl()).isEqualTo("https://shop.example.com:443");
  }

  @Test
  void loadBalancerWithoutIngressYetUsesTheClusterName() {
    Service lb =
        new ServiceBuilder(clusterIpService(8080, "web"))
            .editSpec()
            .withType("LoadBalancer")
            .endSpec()
            .withNewStatus()
            .withNewLoadBalancer()
            .endLoadBalancer()
            .endStatus()
            .build();

    WebServiceStatus status =
        AT_T0.aggregate(webService(4, 3), Optional.of(complete(4, 3)), Optional.of(lb), List.of());

    assertThat(status.getUrl()).isEqualTo("http://shop.prod.svc:8080");
  }

  @Test
  void httpsByPortNameOrPort443() {
    assertThat(
            WebServiceStatusAggregator.url(webService(1, 1), clusterIpService(8443, "https-api")))
        .isEqualTo("https://shop.prod.svc:8443");
    assertThat(WebServiceStatusAggregator.url(webService(1, 1), clusterIpService(443, "web")))
        .isEqualTo("https://shop.prod.svc:443");
    assertThat(WebServiceStatusAggregator.url(webService(1, 1), clusterIpService(8443, "web")))
        .isEqualTo("http://shop.prod.svc:8443");
  }

  @Test
  void aServiceWithoutPortsHasNoUrl() {
    Service none =
        new ServiceBuilder()
            .withNewMetadata()
            .withName("shop")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build();

    assertThat(WebServiceStatusAggregator.url(webService(1, 1), none)).isNull();
  }

  // --- stability ---

  @Test
  void anUnchangedStateGivesTheSameStatus() {
    WebService ws = webService(4, 3);
    Optional<Deployment> d = Optional.of(deployment(4, 2, 2, 3, 3, 1, 3, 3, available("True")));
    Optional<Service> s = Optional.of(clusterIpService(80, "http"));
    WebServiceStatus first = AT_T0.aggregate(ws, d, s, List.of());
    ws.setStatus(first);

    WebServiceStatus second = AT_T1.aggregate(ws, d, s, List.of());

    assertThat(second.getConditions())
        .extracting(Condition::getLastTransitionTime)
        .containsOnly(T0);
    assertThat(second.getConditions()).isEqualTo(first.getConditions());
    assertThat(StatusEquality.sameStatus(first, second)).isTrue();
  }

  @Test
  void onlyConditionsWhoseStatusFlipsGetANewTransitionTime() {
    WebService ws = webService(4, 3);
    WebServiceStatus rolling =
        AT_T0.aggregate(
            ws,
            Optional.of(deployment(4, 2, 2, 3, 3, 1, 3, 3, available("True"))),
            Optional.empty(),
            List.of());
    ws.setStatus(rolling);

    WebServiceStatus done =
        AT_T1.aggregate(ws, Optional.of(complete(4, 3)), Optional.empty(), List.of());

    assertCondition(done, "Ready", "True", "Ready");
    assertThat(condition(done, "Ready").getLastTransitionTime()).isEqualTo(T1);
    assertThat(condition(done, "Progressing").getLastTransitionTime()).isEqualTo(T1);
    assertThat(condition(done, "Available").getLastTransitionTime()).isEqualTo(T0);
    assertThat(condition(done, "Degraded").getLastTransitionTime()).isEqualTo(T0);
    assertThat(StatusEquality.sameStatus(rolling, done)).isFalse();
  }

  // --- blocked ---

  @Test
  void blockedKeepsThePreviousCountsAndAvailability() {
    WebService ws = webService(4, 3);
    WebServiceStatus running =
        AT_T0.aggregate(
            ws, Optional.of(complete(4, 3)), Optional.of(clusterIpService(80, "http")), List.of());
    WebService edited = webService(5, 3);
    edited.setStatus(running);

    WebServiceStatus blocked =
        AT_T1.blocked(
            edited, "InvalidSpec", "invalid spec: spec.ports: port 80/TCP is listed twice");

    assertCondition(blocked, "Ready", "False", "InvalidSpec");
    assertThat(condition(blocked, "Ready").getMessage())
        .isEqualTo("invalid spec: spec.ports: port 80/TCP is listed twice");
    assertCondition(blocked, "Available", "True", "MinimumReplicasAvailable");
    assertCondition(blocked, "Progressing", "False", "InvalidSpec");
    assertCondition(blocked, "Degraded", "True", "InvalidSpec");
    assertThat(blocked.getObservedGeneration()).isEqualTo(5L);
    assertThat(blocked.getConditions())
        .extracting(Condition::getObservedGeneration)
        .containsOnly(5L);
    assertThat(blocked.getReplicas()).isEqualTo(3);
    assertThat(blocked.getReadyReplicas()).isEqualTo(3);
    assertThat(blocked.getUpdatedReplicas()).isEqualTo(3);
    assertThat(blocked.getAvailableReplicas()).isEqualTo(3);
    assertThat(blocked.getUrl()).isEqualTo("http://shop.prod.svc:80");
    assertThat(blocked.getSelector()).isEqualTo(SELECTOR);
    // Ready and Degraded flipped; Available and Progressing kept their status.
    assertThat(condition(blocked, "Ready").getLastTransitionTime()).isEqualTo(T1);
    assertThat(condition(blocked, "Degraded").getLastTransitionTime()).isEqualTo(T1);
    assertThat(condition(blocked, "Available").getLastTransitionTime()).isEqualTo(T0);
    assertThat(condition(blocked, "Progressing").getLastTransitionTime()).isEqualTo(T0);
  }

  @Test
  void blockedWithoutAnyPreviousStatus() {
    WebServiceStatus blocked =
        AT_T0.blocked(webService(1, 3), "ResourceConflict", "Deployment shop already exists");

    assertCondition(blocked, "Ready", "False", "ResourceConflict");
    assertCondition(blocked, "Available", "Unknown", "NotObserved");
    assertCondition(blocked, "Progressing", "False", "ResourceConflict");
    assertCondition(blocked, "Degraded", "True", "ResourceConflict");
    assertThat(blocked.getObservedGeneration()).isEqualTo(1L);
    assertThat(blocked.getReplicas()).isNull();
    assertThat(blocked.getUrl()).isNull();
  }

  @Test
  void blockingTwiceWithTheSameReasonChangesNothing() {
    WebService ws = webService(2, 3);
    WebServiceStatus first = AT_T0.blocked(ws, "InvalidSpec", "invalid spec: x");
    ws.setStatus(first);

    WebServiceStatus second = AT_T1.blocked(ws, "InvalidSpec", "invalid spec: x");

    assertThat(StatusEquality.sameStatus(first, second)).isTrue();
    assertThat(second.getConditions())
        .extracting(Condition::getLastTransitionTime)
        .containsOnly(T0);
  }

  // --- fixtures ---

  private static void assertCondition(
      WebServiceStatus status, String type, String expectedStatus, String reason) {
    Condition c = condition(status, type);
    assertThat(c.getStatus()).as(type + ".status").isEqualTo(expectedStatus);
    assertThat(c.getReason()).as(type + ".reason").isEqualTo(reason);
  }

  private static Condition condition(WebServiceStatus status, String type) {
    List<Condition> matching =
        status.getConditions().stream().filter(c -> type.equals(c.getType())).toList();
    assertThat(matching).as("conditions of type " + type).hasSize(1);
    return matching.get(0);
  }

  private static WebService webService(long generation, int replicas) {
    WebService ws =
        Serialization.unmarshal(
            """
            apiVersion: web.bosun.dev/v1alpha1
            kind: WebService
            metadata: {name: shop, namespace: prod, uid: u-1}
            spec:
              image: nginx
              ports: [{name: http, port: 80, containerPort: 8080}]
            """,
            WebService.class);
    ws.getMetadata().setGeneration(generation);
    ws.getSpec().setReplicas(replicas);
    return ws;
  }

  private static DeploymentCondition available(String status) {
    return new DeploymentConditionBuilder()
        .withType("Available")
        .withStatus(status)
        .withReason(
            "True".equals(status) ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable")
        .build();
  }

  /** A Deployment built from WebService generation {@code specGeneration}, fully rolled out. */
  private static Deployment complete(long specGeneration, int replicas) {
    return deployment(
        specGeneration,
        3,
        3,
        replicas,
        replicas,
        replicas,
        replicas,
        replicas,
        available("True"),
        new DeploymentConditionBuilder()
            .withType("Progressing")
            .withStatus("True")
            .withReason("NewReplicaSetAvailable")
            .build());
  }

  private static Deployment deployment(
      long specGeneration,
      long generation,
      long observedGeneration,
      int specReplicas,
      int replicas,
      int updated,
      int ready,
      int available,
      DeploymentCondition... conditions) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("shop")
        .withNamespace("prod")
        .withGeneration(generation)
        .addToAnnotations("web.bosun.dev/spec-generation", String.valueOf(specGeneration))
        .endMetadata()
        .withNewSpec()
        .withReplicas(specReplicas)
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(observedGeneration)
        .withReplicas(replicas)
        .withUpdatedReplicas(updated)
        .withReadyReplicas(ready)
        .withAvailableReplicas(available)
        .withConditions(new ArrayList<>(List.of(conditions)))
        .endStatus()
        .build();
  }

  private static Service clusterIpService(int port, String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName("shop")
        .withNamespace("prod")
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .addNewPort()
        .withName(name)
        .withPort(port)
        .endPort()
        .endSpec()
        .build();
  }

  private static Pod runningPod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("prod")
        .endMetadata()
        .withNewStatus()
        .withPhase("Running")
        .addNewContainerStatus()
        .withName("app")
        .withReady(true)
        .withNewState()
        .withNewRunning()
        .withStartedAt("2024-05-01T09:00:00Z")
        .endRunning()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  /** The ReplicaSet controller's FailedCreate, as the Deployment controller copies it. */
  private static DeploymentCondition replicaFailure(String message) {
    return new DeploymentConditionBuilder()
        .withType("ReplicaFailure")
        .withStatus("True")
        .withReason("FailedCreate")
        .withMessage(message)
        .build();
  }

  static Pod waitingPod(String name, String container, String reason, String message) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("prod")
        .endMetadata()
        .withNewStatus()
        .withPhase("Pending")
        .addNewContainerStatus()
        .withName(container)
        .withReady(false)
        .withNewState()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @org.junit.jupiter.api.Test
  void onlyTheWaitingReasonsAPersonMustActOnAreProblems() {
    var healthy =
        new io.fabric8.kubernetes.api.model.PodBuilder()
            .withNewMetadata()
            .withName("shop-1")
            .endMetadata()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("app")
            .withNewState()
            .withNewRunning()
            .endRunning()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    var creating =
        new io.fabric8.kubernetes.api.model.PodBuilder()
            .withNewMetadata()
            .withName("shop-1")
            .endMetadata()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("app")
            .withNewState()
            .withNewWaiting()
            .withReason("ContainerCreating")
            .endWaiting()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    var pulling =
        new io.fabric8.kubernetes.api.model.PodBuilder(creating)
            .editStatus()
            .editFirstContainerStatus()
            .editState()
            .editWaiting()
            .withReason("ImagePullBackOff")
            .endWaiting()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    assertThat(WebServiceStatusAggregator.podProblem(List.of(healthy))).isEmpty();
    assertThat(WebServiceStatusAggregator.podProblem(List.of(creating))).isEmpty();
    assertThat(WebServiceStatusAggregator.podProblem(List.of(healthy, pulling)))
        .hasValueSatisfying(p -> assertThat(p[0]).isEqualTo("ImagePullBackOff"));
  }
}
