package dev.bosun.mysql.topology;

import dev.bosun.mysql.sql.GtidArithmetic;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Chooses who becomes the primary: the candidate whose executed position contains every other
 * member's, never an empty or older one. Used for failover and for a full-cluster restart.
 */
public final class Candidates {

  private Candidates() {}

  /** The outcome: the chosen instance, or why none can be chosen. */
  public record Choice(Optional<InstanceState> chosen, String reason, String message) {}

  /**
   * Chooses among {@code candidates} one that covers every member in {@code all} (candidates
   * included); ties go to the lowest ordinal.
   */
  public static Choice choose(
      List<InstanceState> candidates, List<InstanceState> all, GtidArithmetic gtids) {
    if (candidates.isEmpty()) {
      return new Choice(
          Optional.empty(), "NoCandidate", "no reachable instance without errant transactions");
    }
    List<InstanceState> covering =
        candidates.stream()
            .filter(c -> all.stream().allMatch(o -> gtids.covers(c.executed(), o.executed())))
            .sorted(Comparator.comparingInt(InstanceState::ordinal))
            .toList();
    if (covering.isEmpty()) {
      InstanceState ahead =
          all.stream()
              .filter(
                  o -> candidates.stream().noneMatch(c -> gtids.covers(c.executed(), o.executed())))
              .findFirst()
              .orElse(candidates.get(0));
      return new Choice(
          Optional.empty(),
          "NoCompleteCandidate",
          "no candidate holds every transaction of "
              + ahead.name()
              + " (at "
              + ahead.executed()
              + "); promoting one would lose data");
    }
    return new Choice(Optional.of(covering.get(0)), "MostAdvanced", "");
  }
}
