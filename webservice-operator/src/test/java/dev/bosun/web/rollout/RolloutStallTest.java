package dev.bosun.web.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.rollout.RolloutStall.Progressing;
import dev.bosun.web.rollout.RolloutStall.Settled;
import dev.bosun.web.rollout.RolloutStall.Stalled;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RolloutStallTest {

  private static final Instant CREATED = Instant.parse("2026-11-26T02:00:00Z");

  /** A Deployment of 2 replicas at generation 1 with the given counts, created at CREATED. */
  private static DeploymentBuilder deployment(int updated, int ready, int available, int replicas) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("shop")
        .withGeneration(1L)
        .withCreationTimestamp(CREATED.toString())
        .endMetadata()
        .withNewSpec()
        .withReplicas(2)
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(1L)
        .withUpdatedReplicas(updated)
        .withReadyReplicas(ready)
        .withAvailableReplicas(available)
        .withReplicas(replicas)
        .endStatus();
  }

  /** The same with the controller's Progressing condition, last stamped at {@code progress}. */
  private static Deployment progressing(String status, String reason, Instant progress) {
    return deployment(2, 0, 0, 2)
        .editStatus()
        .withConditions(
            new DeploymentConditionBuilder()
                .withType("Progressing")
                .withStatus(status)
                .withReason(reason)
                .withLastUpdateTime(progress.toString())
                .withLastTransitionTime(CREATED.toString())
                .build())
        .endStatus()
        .build();
  }

  private static RolloutStall at(Deployment d, Duration sinceCreation) {
    return RolloutStall.of(Optional.of(d), CREATED.plus(sinceCreation));
  }

  @Test
  void noDeploymentYetHasNothingToExplainAndNoRecheck() {
    RolloutStall stall = RolloutStall.of(Optional.empty(), CREATED);

    assertThat(stall).isInstanceOf(Settled.class);
    assertThat(stall.readsPods()).isFalse();
    assertThat(stall.recheckIn()).isEmpty();
  }

  @Test
  void aCompleteRolloutNeverReadsPodsNorComesBackHoweverOldItsLastProgress() {
    RolloutStall stall = at(deployment(2, 2, 2, 2).build(), Duration.ofDays(30));

    assertThat(stall).isInstanceOf(Settled.class);
    assertThat(stall.readsPods()).isFalse();
    assertThat(stall.recheckIn()).isEmpty();
  }

  @Test
  void aRolloutThatProgressedRecentlyIsLookedAtAgainWhenItsGraceEnds() {
    Deployment d = progressing("True", "ReplicaSetUpdated", CREATED.plusSeconds(30));

    RolloutStall stall = at(d, Duration.ofSeconds(32));

    assertThat(stall).isEqualTo(new Progressing(Duration.ofSeconds(3)));
    assertThat(stall.readsPods()).isFalse();
    assertThat(stall.recheckIn()).contains(Duration.ofSeconds(3));
  }

  @Test
  void aRolloutWithoutProgressForTheGraceReadsItsPods() {
    Deployment d = progressing("True", "ReplicaSetUpdated", CREATED);

    RolloutStall stall = at(d, RolloutStall.GRACE);

    assertThat(stall).isEqualTo(new Stalled(RolloutStall.GRACE));
    assertThat(stall.readsPods()).isTrue();
    assertThat(stall.recheckIn()).contains(RolloutStall.SHORTEST_RECHECK);
  }

  @Test
  void aPodThatCannotStartIsLookedForWithinFiveSecondsOfTheLastProgress() {
    // The kubelet names a missing ConfigMap or Secret within a second or two of the Pod's first
    // Event, and the status must name it within 10 s of that Event.
    Deployment d = progressing("True", "ReplicaSetUpdated", CREATED);

    assertThat(at(d, Duration.ofMillis(4900)).readsPods()).isFalse();
    assertThat(at(d, Duration.ofSeconds(5)).readsPods()).isTrue();
  }

  @Test
  void aLongerStallIsReadLessOftenUpToFiveMinutes() {
    Deployment d = progressing("True", "ReplicaSetUpdated", CREATED);

    assertThat(at(d, Duration.ofSeconds(15)).recheckIn()).contains(RolloutStall.SHORTEST_RECHECK);
    assertThat(at(d, Duration.ofSeconds(120)).recheckIn()).contains(Duration.ofSeconds(60));
    assertThat(at(d, Duration.ofHours(3)).recheckIn()).contains(Duration.ofMinutes(5));
  }

  @Test
  void aRolloutTheControllerGaveUpOnIsStalledAtOnce() {
    Deployment d = progressing("False", "ProgressDeadlineExceeded", CREATED.plusSeconds(59));

    RolloutStall stall = at(d, Duration.ofSeconds(60));

    assertThat(stall.readsPods()).isTrue();
    assertThat(stall).isEqualTo(new Stalled(Duration.ofSeconds(1)));
  }

  @Test
  void withoutAProgressStampTheDeploymentsCreationCounts() {
    Deployment d = deployment(0, 0, 0, 0).build();

    assertThat(at(d, Duration.ofSeconds(3))).isEqualTo(new Progressing(Duration.ofSeconds(2)));
    assertThat(at(d, Duration.ofSeconds(6)).readsPods()).isTrue();
  }

  @Test
  void aStampFromAClockAheadOfOursCountsAsJustNow() {
    Deployment d = progressing("True", "ReplicaSetUpdated", CREATED.plusSeconds(90));

    assertThat(at(d, Duration.ofSeconds(30))).isEqualTo(new Progressing(RolloutStall.GRACE));
  }

  @Test
  void oldPodsLeftOrPodsReadyButNotAvailableAreNotComplete() {
    Deployment oldPodLeft = deployment(2, 2, 2, 3).build();
    Deployment notAvailable = deployment(2, 2, 1, 2).build();
    Deployment notObserved =
        deployment(2, 2, 2, 2).editMetadata().withGeneration(2L).endMetadata().build();

    assertThat(at(oldPodLeft, Duration.ofMinutes(1)).readsPods()).isTrue();
    assertThat(at(notAvailable, Duration.ofMinutes(1)).readsPods()).isTrue();
    assertThat(at(notObserved, Duration.ofMinutes(1)).readsPods()).isTrue();
    assertThat(RolloutStall.rolledOut(notAvailable, false)).isTrue();
    assertThat(RolloutStall.rolledOut(notAvailable, true)).isFalse();
  }

  @Test
  void aCrashLoopAfterAFinishedRolloutIsReadAtOnceAndThenEveryFewMinutes() {
    // The rollout finished an hour ago; a Pod then stopped being ready.
    Deployment d =
        deployment(2, 1, 1, 2)
            .editStatus()
            .withConditions(
                new DeploymentConditionBuilder()
                    .withType("Progressing")
                    .withStatus("True")
                    .withReason("NewReplicaSetAvailable")
                    .withLastUpdateTime(CREATED.toString())
                    .build())
            .endStatus()
            .build();

    RolloutStall stall = at(d, Duration.ofHours(1));

    assertThat(stall.readsPods()).isTrue();
    assertThat(stall.recheckIn()).contains(RolloutStall.LONGEST_RECHECK);
  }
}
