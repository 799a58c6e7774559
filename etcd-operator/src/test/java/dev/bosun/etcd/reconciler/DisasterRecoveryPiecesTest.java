package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.restore.RestoreSource;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DisasterRecoveryPiecesTest {

  private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
  private static final DisasterRecovery.Policy POLICY =
      new DisasterRecovery.Policy("nightly", 60, 30);

  private static RestoreSource takenAgo(Duration age) {
    return new RestoreSource.Volume(
        "nightly", "ns/c/nightly/x.db", URI.create("https://op:1"), "ca", NOW.minus(age));
  }

  @Test
  void withoutEvidenceOfALossTheConditionSaysWhyNothingStarts() {
    assertThat(DisasterRecovery.noLoss(new Step.MembersUnseen("m"), POLICY).reason())
        .isEqualTo("QuorumNotConfirmedLost");
    assertThat(DisasterRecovery.noLoss(new Step.NoLeader("m"), POLICY).reason())
        .isEqualTo("DataIntact");
    assertThat(DisasterRecovery.noLoss(new Step.Converged(), POLICY).message())
        .isEqualTo(
            "a quorum loss confirmed for 60 s is recovered from the newest snapshot of EtcdBackup"
                + " nightly if it is younger than 30 minutes");
  }

  @Test
  void aLossWaitsUntilAfterSecondsHavePassedAndNoLonger() {
    assertThat(DisasterRecovery.waiting(POLICY, NOW.minusSeconds(59), NOW))
        .hasValueSatisfying(d -> assertThat(d).isInstanceOf(DisasterRecovery.Waiting.class));
    assertThat(DisasterRecovery.waiting(POLICY, NOW.minusSeconds(60), NOW)).isEmpty();
  }

  @Test
  void aSnapshotWithinTheAgeBoundStartsTheRecoveryAndAnOlderOneIsRefused() {
    Instant since = NOW.minusSeconds(600);
    assertThat(DisasterRecovery.withSnapshot(POLICY, since, takenAgo(Duration.ofMinutes(30)), NOW))
        .isInstanceOf(DisasterRecovery.Start.class);
    DisasterRecovery.Decision old =
        DisasterRecovery.withSnapshot(POLICY, since, takenAgo(Duration.ofMinutes(31)), NOW);
    assertThat(old).isInstanceOf(DisasterRecovery.Refused.class);
    assertThat(List.of(old.condition().reason())).containsExactly("SnapshotTooOld");
  }
}
