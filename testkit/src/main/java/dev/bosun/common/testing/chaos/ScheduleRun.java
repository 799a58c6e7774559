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

  /** A failing schedule's report: what broke, the schedule with its replay command, and the log. */
  public String failure(String tag, List<String> broken, String replayCommand) {
    return tag
        + " seed "
        + schedule.seed()
        + " FAILED: "
        + String.join("; ", broken)
        + "\n"
        + schedule.text(replayCommand)
        + "\n--- run\n"
        + logText();
  }

  /** The log as lines, for a failure message. */
  public String logText() {
    return String.join("\n", log);
  }
}
