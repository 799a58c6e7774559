package dev.bosun.config.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RolloutDecisionTest {

  private static final Instant T0 = Instant.parse("2025-01-01T10:00:00Z");
  private static final Duration DEBOUNCE = Duration.ofSeconds(30);

  @Test
  void firstLookRecordsABaselineAndRollsNothing() {
    assertThat(RolloutDecision.decide("h1", null, false, null, null, DEBOUNCE, T0))
        .isEqualTo(new RolloutDecision.Baseline("h1"));
    assertThat(RolloutDecision.decide("h1", null, false, null, null, Duration.ZERO, T0))
        .isEqualTo(new RolloutDecision.Baseline("h1"));
  }

  @Test
  void aSpecChangeRecordsANewBaselineEvenWhenTheHashChanged() {
    assertThat(RolloutDecision.decide("h2", "h1", true, null, null, Duration.ZERO, T0))
        .isEqualTo(new RolloutDecision.Baseline("h2"));
    assertThat(RolloutDecision.decide("h2", "h1", true, "h2", T0.minusSeconds(60), DEBOUNCE, T0))
        .isEqualTo(new RolloutDecision.Baseline("h2"));
  }

  @Test
  void theAppliedHashIsUnchanged() {
    assertThat(RolloutDecision.decide("h1", "h1", false, null, null, DEBOUNCE, T0))
        .isEqualTo(new RolloutDecision.Unchanged());
  }

  @Test
  void aChangeRevertedWhileWaitingIsUnchanged() {
    assertThat(RolloutDecision.decide("h1", "h1", false, "h2", T0.minusSeconds(5), DEBOUNCE, T0))
        .isEqualTo(new RolloutDecision.Unchanged());
  }

  @Test
  void aNewChangeStartsTheDebounceWindow() {
    assertThat(RolloutDecision.decide("h2", "h1", false, null, null, DEBOUNCE, T0))
        .isEqualTo(new RolloutDecision.StartWaiting("h2", T0, DEBOUNCE));
  }

  @Test
  void withoutDebounceANewChangeRollsAtOnce() {
    assertThat(RolloutDecision.decide("h2", "h1", false, null, null, Duration.ZERO, T0))
        .isEqualTo(new RolloutDecision.Roll("h2"));
  }

  @Test
  void thePendingChangeRollsOnceTheWindowHasPassed() {
    assertThat(RolloutDecision.decide("h2", "h1", false, "h2", T0, DEBOUNCE, T0.plus(DEBOUNCE)))
        .as("exactly the debounce")
        .isEqualTo(new RolloutDecision.Roll("h2"));
    assertThat(RolloutDecision.decide("h2", "h1", false, "h2", T0, DEBOUNCE, T0.plusSeconds(3600)))
        .as("long after")
        .isEqualTo(new RolloutDecision.Roll("h2"));
  }

  @Test
  void thePendingChangeKeepsWaitingForTheRestOfTheWindow() {
    assertThat(RolloutDecision.decide("h2", "h1", false, "h2", T0, DEBOUNCE, T0.plusSeconds(10)))
        .isEqualTo(new RolloutDecision.KeepWaiting(Duration.ofSeconds(20)));
    assertThat(RolloutDecision.decide("h2", "h1", false, "h2", T0, DEBOUNCE, T0.plusSeconds(29)))
        .isEqualTo(new RolloutDecision.KeepWaiting(Duration.ofSeconds(1)));
    assertThat(RolloutDecision.decide("h2", "h1", false, "h2", T0, DEBOUNCE, T0))
        .isEqualTo(new RolloutDecision.KeepWaiting(DEBOUNCE));
  }

  @Test
  void aNewerChangeWhileWaitingRestartsTheWindow() {
    Instant later = T0.plusSeconds(25);

    assertThat(RolloutDecision.decide("h3", "h1", false, "h2", T0, DEBOUNCE, later))
        .isEqualTo(new RolloutDecision.StartWaiting("h3", later, DEBOUNCE));
  }

  @Test
  void aPendingHashWithoutATimeStartsWaiting() {
    assertThat(RolloutDecision.decide("h2", "h1", false, "h2", null, DEBOUNCE, T0))
        .isEqualTo(new RolloutDecision.StartWaiting("h2", T0, DEBOUNCE));
  }

  @Test
  void aBurstOfChangesCollapsesIntoOneRollOfTheLastHash() {
    // Status as the reconciler keeps it: applied, pending, pendingSince.
    String applied = "h0";
    String pending = null;
    Instant since = null;
    int rolls = 0;
    String rolledTo = null;
    String[] observed = {"h1", "h2", "h3", "h3", "h3", "h3"};
    for (int second = 0; second < observed.length * 10; second += 10) {
      Instant now = T0.plusSeconds(second);
      RolloutDecision d =
          RolloutDecision.decide(
              observed[second / 10], applied, false, pending, since, Duration.ofSeconds(25), now);
      if (d instanceof RolloutDecision.StartWaiting w) {
        pending = w.hash();
        since = w.since();
      } else if (d instanceof RolloutDecision.Roll r) {
        rolls++;
        rolledTo = r.hash();
        applied = r.hash();
        pending = null;
        since = null;
      }
    }

    assertThat(rolls).isEqualTo(1);
    assertThat(rolledTo).isEqualTo("h3");
    assertThat(applied).isEqualTo("h3");
  }
}
