package dev.bosun.web.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The reasons and sentences, from the messages the kubelet, scheduler and API server write. */
class StartProblemsTest {

  // --- the ReplicaSet controller cannot create Pods (the Deployment's ReplicaFailure) ---

  @Test
  void aMissingServiceAccountIsNamed() {
    StartProblem p =
        StartProblems.ofRefusedCreate(
            "pods \"shop-5c7b9d-\" is forbidden: error looking up service account"
                + " team-a/shop-runner: serviceaccount \"shop-runner\" not found");
    assertThat(p.reason()).isEqualTo("MissingServiceAccount");
    assertThat(p.message())
        .isEqualTo(
            "no Pod can be created: ServiceAccount shop-runner does not exist; create it or"
                + " change spec.serviceAccountName");
  }

  @Test
  void anExhaustedQuotaIsNamedWithTheServersNumbers() {
    StartProblem p =
        StartProblems.ofRefusedCreate(
            "pods \"shop-5c7b9d-x2v\" is forbidden: exceeded quota: compute, requested: pods=1,"
                + " used: pods=2, limited: pods=2");
    assertThat(p.reason()).isEqualTo("PodCreationRefused");
    assertThat(p.message())
        .startsWith("no Pod can be created: ResourceQuota compute is used up;")
        .contains("requested: pods=1, used: pods=2, limited: pods=2");
  }

  @Test
  void anyOtherRefusalIsPodCreationRefusedWithTheServersWords() {
    StartProblem p =
        StartProblems.ofRefusedCreate(
            "admission webhook \"policy.example.com\" denied the request: privileged");
    assertThat(p.reason()).isEqualTo("PodCreationRefused");
    assertThat(p.message())
        .isEqualTo(
            "no Pod can be created: the API server refuses them: admission webhook"
                + " \"policy.example.com\" denied the request: privileged");
    assertThat(StartProblems.ofRefusedCreate(null).message()).endsWith("no reason given");
  }

  @Test
  void aLongRefusalIsBounded() {
    String longMessage = "forbidden: " + "x".repeat(5000);
    assertThat(StartProblems.ofRefusedCreate(longMessage).message().length()).isLessThan(400);
  }

  // --- a container the kubelet cannot configure ---

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "configmap \"shop-config\" not found|MissingConfigMap|ConfigMap shop-config does not exist",
        "configmaps \"shop-config\" not found|MissingConfigMap|ConfigMap shop-config does not exist",
        "secret \"shop-creds\" not found|MissingSecret|Secret shop-creds does not exist",
        "secrets \"shop-creds\" not found|MissingSecret|Secret shop-creds does not exist",
        "couldn't find key mode in ConfigMap team-a/shop-config|MissingConfigMapKey|"
            + "ConfigMap shop-config has no key mode",
        "couldn't find key password in Secret team-a/shop-creds|MissingSecretKey|"
            + "Secret shop-creds has no key password"
      })
  void aContainerConfigErrorNamesTheMissingObject(String kubelet, String reason, String says) {
    Optional<StartProblem> p =
        StartProblems.ofPods(List.of(waiting("shop-1", "CreateContainerConfigError", kubelet)));
    assertThat(p).isPresent();
    assertThat(p.get().reason()).isEqualTo(reason);
    assertThat(p.get().message())
        .startsWith("the Pods cannot start: " + says + " (container app of Pod shop-1)");
  }

  @Test
  void anInitContainerIsReadToo() {
    Pod pod =
        new PodBuilder(pod("shop-1"))
            .editStatus()
            .addNewInitContainerStatus()
            .withName("migrate")
            .withNewState()
            .withNewWaiting()
            .withReason("CreateContainerConfigError")
            .withMessage("secret \"db\" not found")
            .endWaiting()
            .endState()
            .endInitContainerStatus()
            .endStatus()
            .build();
    assertThat(StartProblems.ofPods(List.of(pod)))
        .hasValueSatisfying(
            p -> assertThat(p.message()).contains("Secret db does not exist (container migrate"));
  }

  @Test
  void aCrashLoopNeedsNoEvents() {
    assertThat(
            StartProblems.unexplained(List.of(waiting("shop-1", "CrashLoopBackOff", "back-off"))))
        .isFalse();
  }

  @Test
  void aConfigErrorThatNamesNoObjectIsLeftToTheGenericReport() {
    // runAsNonRoot with a root image: not a missing reference; reported as the waiting reason.
    Pod pod =
        waiting(
            "shop-1",
            "CreateContainerConfigError",
            "container has runAsNonRoot and image will run as root");
    assertThat(StartProblems.ofPods(List.of(pod))).isEmpty();
    // The aggregator reports it by its waiting reason: no Events are read for it.
    assertThat(StartProblems.unexplained(List.of(pod))).isFalse();
  }

  @Test
  void otherWaitingReasonsAreNotMissingObjects() {
    assertThat(
            StartProblems.ofPods(
                List.of(waiting("shop-1", "ImagePullBackOff", "secret \"x\" not found"))))
        .isEmpty();
  }

  @Test
  void podsAreReadInNameOrderAndDeletedOnesIgnored() {
    Pod gone =
        new PodBuilder(waiting("shop-0", "CreateContainerConfigError", "secret \"old\" not found"))
            .editMetadata()
            .withDeletionTimestamp("2026-01-01T00:00:00Z")
            .endMetadata()
            .build();
    Pod b = waiting("shop-b", "CreateContainerConfigError", "secret \"b\" not found");
    Pod a = waiting("shop-a", "CreateContainerConfigError", "configmap \"a\" not found");
    assertThat(StartProblems.ofPods(List.of(gone, b, a)))
        .hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("MissingConfigMap"));
  }

  // --- a Pod the scheduler cannot place ---

  @Test
  void aMissingClaimKeepsThePodUnscheduled() {
    Pod pod =
        unscheduled(
            "shop-1", "0/1 nodes are available: 1 persistentvolumeclaim \"shop-data\" not found.");
    assertThat(StartProblems.ofPods(List.of(pod)))
        .hasValue(
            new StartProblem(
                "MissingClaim",
                "the Pods cannot be scheduled: PersistentVolumeClaim shop-data does not exist"
                    + " (Pod shop-1); create it or fix the volume's claimName"));
  }

  @Test
  void anyOtherUnschedulablePodCarriesTheSchedulersWords() {
    Pod pod = unscheduled("shop-1", "0/3 nodes are available: 3 Insufficient memory.");
    assertThat(StartProblems.ofPods(List.of(pod)))
        .hasValue(
            new StartProblem(
                "Unschedulable",
                "the Pods cannot be scheduled (Pod shop-1): the scheduler said: 0/3 nodes are"
                    + " available: 3 Insufficient memory."));
  }

  @Test
  void aPodScheduledFalseForAnotherReasonIsNotUnschedulable() {
    Pod pod =
        new PodBuilder(pod("shop-1"))
            .editStatus()
            .addNewCondition()
            .withType("PodScheduled")
            .withStatus("False")
            .withReason("SchedulingGated")
            .endCondition()
            .endStatus()
            .build();
    assertThat(StartProblems.ofPods(List.of(pod))).isEmpty();
  }

  // --- the kubelet's Events: a volume that cannot be mounted ---

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "MountVolume.SetUp failed for volume \"config\" : configmap \"shop-config\" not found|"
            + "MissingConfigMap|ConfigMap shop-config does not exist (volume config of Pod shop-1)",
        "MountVolume.SetUp failed for volume \"creds\" : secret \"shop-creds\" not found|"
            + "MissingSecret|Secret shop-creds does not exist (volume creds of Pod shop-1)",
        "Unable to attach or mount volumes: unmounted volumes=[config], unattached volumes=[config"
            + " token]: timed out waiting for the condition|VolumeMountFailed|"
            + "a volume cannot be mounted (a volume of Pod shop-1): Unable to attach"
      })
  void aFailedMountEventNamesTheVolumeAndTheObject(String kubelet, String reason, String says) {
    Pod pod = waiting("shop-1", "ContainerCreating", null);
    Optional<StartProblem> p =
        StartProblems.ofEvents(List.of(pod), List.of(event("shop-1", "FailedMount", kubelet, 1)));
    assertThat(p).isPresent();
    assertThat(p.get().reason()).isEqualTo(reason);
    assertThat(p.get().message()).startsWith("the Pods cannot start: " + says);
  }

  @Test
  void theNewestEventOfAPodCounts() {
    Pod pod = waiting("shop-1", "ContainerCreating", null);
    Event older =
        event("shop-1", "FailedMount", "MountVolume.SetUp failed: secret \"s\" not found", 1);
    Event newer =
        event("shop-1", "FailedMount", "MountVolume.SetUp failed: configmap \"c\" not found", 2);
    assertThat(StartProblems.ofEvents(List.of(pod), List.of(older, newer)))
        .hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("MissingConfigMap"));
  }

  @Test
  void aFailedSchedulingEventIsUnschedulable() {
    Pod pod = pod("shop-1");
    Event e =
        event(
            "shop-1",
            "FailedScheduling",
            "0/1 nodes are available: 1 persistentvolumeclaim \"data\" not found.",
            1);
    assertThat(StartProblems.ofEvents(List.of(pod), List.of(e)))
        .hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("MissingClaim"));
  }

  @Test
  void eventsAboutReadyOtherOrEarlierPodsAndOtherReasonsAreHistory() {
    Pod ready = ready("shop-1");
    Pod waiting = waiting("shop-2", "ContainerCreating", null);
    String missing = "MountVolume.SetUp failed for volume \"c\" : configmap \"c\" not found";
    Event aboutReady = event("shop-1", "FailedMount", missing, 1);
    Event aboutOther = event("other-1", "FailedMount", missing, 1);
    Event earlierPodOfTheSameName = event("shop-2", "FailedMount", missing, 1);
    earlierPodOfTheSameName.getInvolvedObject().setUid("an-earlier-uid");
    Event unhealthy = event("shop-2", "Unhealthy", "Readiness probe failed", 1);
    assertThat(
            StartProblems.ofEvents(
                List.of(ready, waiting),
                List.of(aboutReady, aboutOther, earlierPodOfTheSameName, unhealthy)))
        .isEmpty();
  }

  @Test
  void onlyPodsThatAreNotReadyAndUnexplainedAskForEvents() {
    Pod ready = ready("shop-1");
    assertThat(StartProblems.unexplained(List.of())).isFalse();
    assertThat(StartProblems.unexplained(List.of(ready))).isFalse();
    assertThat(
            StartProblems.unexplained(List.of(ready, waiting("shop-2", "ContainerCreating", null))))
        .isTrue();
    assertThat(
            StartProblems.unexplained(
                List.of(waiting("shop-2", "CreateContainerConfigError", "secret \"s\" not found"))))
        .isFalse();
  }

  private static Pod pod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withUid(name + "-uid")
        .endMetadata()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  private static Pod waiting(String name, String reason, String message) {
    return new PodBuilder(WebServiceStatusAggregatorTest.waitingPod(name, "app", reason, message))
        .editMetadata()
        .withUid(name + "-uid")
        .endMetadata()
        .build();
  }

  private static Pod ready(String name) {
    return new PodBuilder(pod(name))
        .editStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  private static Pod unscheduled(String name, String message) {
    return new PodBuilder(pod(name))
        .editStatus()
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("False")
        .withReason("Unschedulable")
        .withMessage(message)
        .endCondition()
        .endStatus()
        .build();
  }

  private static Event event(String pod, String reason, String message, int minute) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(pod + "." + minute)
        .endMetadata()
        .withNewInvolvedObject()
        .withKind("Pod")
        .withName(pod)
        .withUid(pod + "-uid")
        .endInvolvedObject()
        .withType("Warning")
        .withReason(reason)
        .withMessage(message)
        .withLastTimestamp("2026-01-01T00:0" + minute + ":00Z")
        .build();
  }
}
