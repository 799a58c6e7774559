package dev.bosun.common.testing.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduleRunnerTest {

  /** A clock that jumps to whatever instant the runner waits for. */
  private static final class JumpingClock implements ScheduleRunner.Clock {
    long now = 1_000;
    long interruptAt = Long.MAX_VALUE;

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void waitUntil(long nanos) throws InterruptedException {
      if (nanos >= interruptAt) {
        throw new InterruptedException("stopped");
      }
      now = Math.max(now, nanos);
    }
  }

  /** Records what it is asked to do; refuses faults whose target is "down". */
  private static final class RecordingNemesis implements Nemesis {
    final List<String> calls = new ArrayList<>();

    @Override
    public void inject(Fault f) {
      if (f.target().equals("down")) {
        throw new IllegalStateException("down is not running");
      }
      calls.add("inject " + f.index());
    }

    @Override
    public void heal(Fault f) {
      calls.add("heal " + f.index());
    }

    @Override
    public void healAll() {
      calls.add("healAll");
    }
  }

  private static Fault fault(int index, String target, long atMillis, long lengthMillis) {
    return new Fault(
        index, "freeze", target, Duration.ofMillis(atMillis), Duration.ofMillis(lengthMillis));
  }

  @Test
  void injectsAndHealsInTimeOrderHealingBeforeInjectingAtTheSameInstant() throws Exception {
    RecordingNemesis nemesis = new RecordingNemesis();
    FaultSchedule s =
        new FaultSchedule(
            1,
            List.of(
                fault(1, "m0", 0, 1_000),
                fault(2, "m1", 500, 2_000),
                fault(3, "m2", 1_000, 0),
                fault(4, "m0", 1_000, 500)));

    ScheduleRun run = new ScheduleRunner(nemesis, new JumpingClock()).run(s);

    assertThat(nemesis.calls)
        .containsExactly(
            "inject 1",
            "inject 2",
            "heal 1",
            "inject 3",
            "inject 4",
            "heal 4",
            "heal 2",
            "healAll");
    assertThat(run.injected()).isEqualTo(4);
    assertThat(run.errors()).isEmpty();
    assertThat(run.took()).isEqualTo(Duration.ofMillis(2_500));
    assertThat(run.logText()).contains("t+0.5s injected #2 t+0.5s freeze m1 for 2.0s");
  }

  @Test
  void aFaultThatCannotBeInjectedIsLoggedNotHealedAndTheScheduleGoesOn() throws Exception {
    RecordingNemesis nemesis = new RecordingNemesis();
    FaultSchedule s =
        new FaultSchedule(1, List.of(fault(1, "down", 0, 1_000), fault(2, "m1", 100, 100)));

    ScheduleRun run = new ScheduleRunner(nemesis, new JumpingClock()).run(s);

    assertThat(nemesis.calls).containsExactly("inject 2", "heal 2", "healAll");
    assertThat(run.injected()).isEqualTo(1);
    assertThat(run.errors())
        .singleElement()
        .asString()
        .contains("could not inject #1")
        .contains("down is not running");
  }

  @Test
  void everythingIsHealedWhenTheScheduleIsInterrupted() {
    RecordingNemesis nemesis = new RecordingNemesis();
    JumpingClock clock = new JumpingClock();
    clock.interruptAt = clock.now + Duration.ofMillis(400).toNanos();
    FaultSchedule s =
        new FaultSchedule(1, List.of(fault(1, "m0", 0, 1_000), fault(2, "m1", 500, 100)));

    assertThatThrownBy(() -> new ScheduleRunner(nemesis, clock).run(s))
        .isInstanceOf(InterruptedException.class);
    assertThat(nemesis.calls).containsExactly("inject 1", "healAll");
  }

  @Test
  void theSystemClockWaitsUntilTheInstant() throws Exception {
    long until = System.nanoTime() + Duration.ofMillis(50).toNanos();
    ScheduleRunner.SYSTEM.waitUntil(until);
    assertThat(System.nanoTime()).isGreaterThanOrEqualTo(until);
  }
}
