package dev.bosun.common.testing.chaos;

import java.time.Duration;
import java.util.List;

/**
 * What playing a schedule did: how many faults were injected, the timed log of injections and
 * heals, the faults that could not be injected or healed, and how long it took.
 */
public record ScheduleRun(
    FaultSchedule schedule, int injected, List<String> log, List<String> errors, Duration took) {

  public ScheduleRun {
    log = List.copyOf(log);
    errors = List.copyOf(errors);
  }

  /** The log as lines, for a failure message. */
  public String logText() {
    return String.join("\n", log);
  }
}
