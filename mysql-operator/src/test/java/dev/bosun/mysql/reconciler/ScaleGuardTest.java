package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScaleGuardTest {

  private static final java.util.function.IntFunction<String> NOTHING_HELD = keep -> null;

  @Test
  void aNewClusterGetsWhatTheSpecAsks() {
    assertThat(ScaleGuard.decide(3, -1, false, null, NOTHING_HELD))
        .isEqualTo(new ScaleGuard.Decision(3, null));
  }

  @Test
  void thePrimaryIsNeverScaledAway() {
    assertThat(ScaleGuard.decide(1, 2, false, 3, NOTHING_HELD))
        .isEqualTo(new ScaleGuard.Decision(3, null));
  }

  @Test
  void aChangeWaitsWhileThePrimaryIsMissing() {
    var d = ScaleGuard.decide(5, 0, true, 3, NOTHING_HELD);
    assertThat(d.statefulSetReplicas()).isEqualTo(3);
    assertThat(d.deferred())
        .isEqualTo("spec.replicas is 5 but the change waits until the cluster has a primary again");
  }

  @Test
  void noChangeNothingDeferredEvenWithoutAPrimary() {
    assertThat(ScaleGuard.decide(3, 0, true, 3, NOTHING_HELD))
        .isEqualTo(new ScaleGuard.Decision(3, null));
  }

  @Test
  void aScaleDownWaitsForWhatOnlyTheLeavingInstancesHold() {
    var d = ScaleGuard.decide(1, 0, false, 3, keep -> keep == 1 ? "db-2 lags" : null);
    assertThat(d).isEqualTo(new ScaleGuard.Decision(3, "db-2 lags"));
  }

  @Test
  void aScaleDownGoesAheadWhenNothingIsHeldBack() {
    assertThat(ScaleGuard.decide(1, 0, false, 3, NOTHING_HELD))
        .isEqualTo(new ScaleGuard.Decision(1, null));
  }

  @Test
  void aScaleUpIsNeverHeldBack() {
    assertThat(ScaleGuard.decide(5, 0, false, 3, keep -> "never asked"))
        .isEqualTo(new ScaleGuard.Decision(5, null));
  }
}
