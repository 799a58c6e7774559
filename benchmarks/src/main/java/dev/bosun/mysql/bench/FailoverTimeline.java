package dev.bosun.mysql.bench;

import dev.bosun.mysql.execute.FailoverBoundaries;
import dev.bosun.mysql.plan.Step;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * When each part of one benchmarked failover happened: the kill, the round that first saw the
 * primary gone, the failover round and the boundaries its executor passed, the first write the new
 * primary acknowledged. Turned into phases (milliseconds between consecutive marks).
 */
final class FailoverTimeline {

  static final String KILLED = "killed";
  static final String DETECTED = "detected";
  static final String FAILOVER_ROUND = "failover-round";
  static final String FAILOVER_ROUND_DONE = "failover-round-done";
  static final String ATTACH_ROUND_DONE = "attach-round-done";
  static final String ACKNOWLEDGED = "acknowledged";

  /** Each phase ends at a mark; its name says what ran since the previous mark. */
  private static final List<Phase> PHASES =
      List.of(
          new Phase("detect", DETECTED),
          new Phase("timeout", FAILOVER_ROUND),
          new Phase("observe+plan", FailoverBoundaries.STARTED),
          new Phase("stop-receivers", FailoverBoundaries.RECEIVING_STOPPED),
          new Phase("fence-old", FailoverBoundaries.OLD_PRIMARY_FENCED),
          new Phase("choose", FailoverBoundaries.CANDIDATE_CHOSEN),
          new Phase("wait-apply", FailoverBoundaries.CANDIDATE_CAUGHT_UP),
          new Phase("intent", FailoverBoundaries.INTENT_RECORDED),
          new Phase("promote", FailoverBoundaries.PROMOTED),
          new Phase("repoint", FailoverBoundaries.REPLICAS_REPOINTED),
          new Phase("round-end", FAILOVER_ROUND_DONE),
          new Phase("next-round-attach", ATTACH_ROUND_DONE),
          new Phase("first-ack", ACKNOWLEDGED));

  private record Phase(String name, String endsAt) {}

  private final Map<String, Long> marks = new ConcurrentHashMap<>();

  /** Records the first time {@code mark} was reached. */
  void mark(String mark) {
    marks.putIfAbsent(mark, System.nanoTime());
  }

  /** Records that {@code mark} was reached at {@code nanoTime}. */
  void markAt(String mark, long nanoTime) {
    marks.putIfAbsent(mark, nanoTime);
  }

  /** A round of the controller after the kill: started at {@code started}, planned {@code step}. */
  void round(long started, Step step) {
    long now = System.nanoTime();
    if (!(step instanceof Step.Steady)) {
      marks.putIfAbsent(DETECTED, now);
    }
    if (step instanceof Step.Failover) {
      marks.putIfAbsent(FAILOVER_ROUND, started);
      marks.putIfAbsent(FAILOVER_ROUND_DONE, now);
    }
    if (step instanceof Step.Attach && marks.containsKey(FAILOVER_ROUND_DONE)) {
      marks.putIfAbsent(ATTACH_ROUND_DONE, now);
    }
  }

  /**
   * Milliseconds of each phase that was passed, in the order the marks were reached (a phase not
   * passed is left out): each runs from the mark before it to its own.
   */
  Map<String, Double> phases() {
    Map<String, Double> out = new LinkedHashMap<>();
    Long killed = marks.get(KILLED);
    if (killed == null) {
      return out;
    }
    List<Phase> passed =
        PHASES.stream()
            .filter(p -> marks.containsKey(p.endsAt()))
            .sorted(Comparator.comparingLong(p -> marks.get(p.endsAt())))
            .toList();
    long previous = killed;
    for (Phase p : passed) {
      long at = marks.get(p.endsAt());
      out.put(p.name(), (at - previous) / 1e6);
      previous = at;
    }
    return out;
  }

  static String format(Map<String, Double> phases) {
    return phases.entrySet().stream()
        .map(e -> String.format("%s %.1f", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }
}
