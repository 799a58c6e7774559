package dev.bosun.common.testing.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Plays a schedule in real time against a nemesis: each fault injected at its instant, each lasting
 * one healed at its end (heals before injections at the same instant), everything healed at the end
 * whatever happened. A fault that could not be injected is logged and not healed; the schedule goes
 * on, since a fault that cannot happen (killing a member that is already down) is part of chaos.
 */
public final class ScheduleRunner {

  /** The time source the runner waits on; a test gives it a fake one. */
  public interface Clock {
    long nanoTime();

    /** Returns at {@code nanos} of {@link #nanoTime()} or later. */
    void waitUntil(long nanos) throws InterruptedException;
  }

  /** The machine's monotonic clock. */
  public static final Clock SYSTEM =
      new Clock() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public void waitUntil(long nanos) throws InterruptedException {
          for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
              throw new InterruptedException("schedule interrupted");
            }
          }
        }
      };

  private record Action(Fault fault, boolean heal, Duration at) {}

  private final Nemesis nemesis;
  private final Clock clock;

  public ScheduleRunner(Nemesis nemesis, Clock clock) {
    this.nemesis = nemesis;
    this.clock = clock;
  }

  /** Plays {@code schedule}; returns what was injected and what failed. */
  public ScheduleRun run(FaultSchedule schedule) throws InterruptedException {
    long start = clock.nanoTime();
    List<String> log = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    Set<Integer> injected = new HashSet<>();
    try {
      for (Action action : actions(schedule)) {
        clock.waitUntil(start + action.at().toNanos());
        String when = "t+" + Fault.seconds(Duration.ofNanos(clock.nanoTime() - start)) + "s ";
        if (action.heal() && !injected.contains(action.fault().index())) {
          continue;
        }
        try {
          if (action.heal()) {
            nemesis.heal(action.fault());
            log.add(when + "healed " + action.fault().describe());
          } else {
            nemesis.inject(action.fault());
            injected.add(action.fault().index());
            log.add(when + "injected " + action.fault().describe());
          }
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          String what = (action.heal() ? "could not heal " : "could not inject ");
          errors.add(when + what + action.fault().describe() + ": " + e.getMessage());
          log.add(errors.get(errors.size() - 1));
        }
      }
    } finally {
      healAll(log, errors, start);
    }
    return new ScheduleRun(
        schedule, injected.size(), log, errors, Duration.ofNanos(clock.nanoTime() - start));
  }

  private void healAll(List<String> log, List<String> errors, long start) {
    String when = "t+" + Fault.seconds(Duration.ofNanos(clock.nanoTime() - start)) + "s ";
    try {
      nemesis.healAll();
      log.add(when + "healed everything");
    } catch (Exception e) {
      errors.add(when + "could not heal everything: " + e.getMessage());
      log.add(errors.get(errors.size() - 1));
    }
  }

  private static List<Action> actions(FaultSchedule schedule) {
    List<Action> actions = new ArrayList<>();
    for (Fault f : schedule.faults()) {
      actions.add(new Action(f, false, f.at()));
      if (!f.instantaneous()) {
        actions.add(new Action(f, true, f.healAt()));
      }
    }
    actions.sort(
        Comparator.comparing(Action::at)
            .thenComparing(a -> !a.heal())
            .thenComparingInt(a -> a.fault().index()));
    return actions;
  }
}
