package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

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
    return choose(candidates, all, gtids, InstanceState::executed);
  }

  /**
   * Like {@link #choose}, for a start without a writable primary (a full-cluster or primary
   * restart): of a member in {@code errant} only what came to it from a source (received or applied
   * as a replica) must be covered. Its own local writes are nobody's acknowledged commits;
   * demanding them would block every restart of a cluster with an errant member wherever GTIDs are
   * sets (MySQL: its local writes carry its own server UUID, which no other member can hold), while
   * what it received, and may have acknowledged, must still not be lost.
   */
  public static Choice chooseExcept(
      List<InstanceState> candidates,
      List<InstanceState> all,
      Set<String> errant,
      GtidArithmetic gtids) {
    return choose(
        candidates,
        all,
        gtids,
        InstanceState::executed,
        o -> errant.contains(o.name()) ? gtids.union(o.received(), o.replicated()) : o.executed());
  }

  /**
   * Chooses by what each member received, not only applied: semi-sync acknowledges on receipt, so
   * an acknowledged commit may so far be only in a replica's relay log. The chosen one must then
   * apply all of it before it takes writes.
   */
  public static Choice chooseByReceived(
      List<InstanceState> candidates, List<InstanceState> all, GtidArithmetic gtids) {
    return choose(candidates, all, gtids, i -> i.held(gtids));
  }

  /**
   * The candidates that may follow {@code chosen} as soon as it is promoted: every other one whose
   * received and applied transactions it holds (all of them, when it was chosen by {@link
   * #chooseByReceived}), so none is left with a transaction the new primary lacks. In order.
   */
  public static List<String> followers(
      InstanceState chosen, List<InstanceState> candidates, GtidArithmetic gtids) {
    return candidates.stream()
        .filter(c -> !c.name().equals(chosen.name()))
        .filter(c -> gtids.covers(chosen.held(gtids), c.held(gtids)))
        .map(InstanceState::name)
        .toList();
  }

  private static Choice choose(
      List<InstanceState> candidates,
      List<InstanceState> all,
      GtidArithmetic gtids,
      Function<InstanceState, String> position) {
    return choose(candidates, all, gtids, position, position);
  }

  private static Choice choose(
      List<InstanceState> candidates,
      List<InstanceState> all,
      GtidArithmetic gtids,
      Function<InstanceState, String> position,
      Function<InstanceState, String> toCover) {
    if (candidates.isEmpty()) {
      return new Choice(
          Optional.empty(), "NoCandidate", "no reachable instance without errant transactions");
    }
    List<InstanceState> covering =
        candidates.stream()
            .filter(
                c -> all.stream().allMatch(o -> gtids.covers(position.apply(c), toCover.apply(o))))
            .sorted(Comparator.comparingInt(InstanceState::ordinal))
            .toList();
    if (covering.isEmpty()) {
      InstanceState ahead =
          all.stream()
              .filter(
                  o ->
                      candidates.stream()
                          .noneMatch(c -> gtids.covers(position.apply(c), toCover.apply(o))))
              .findFirst()
              .orElse(candidates.get(0));
      return new Choice(
          Optional.empty(),
          "NoCompleteCandidate",
          "no candidate holds every transaction of "
              + ahead.name()
              + " (at "
              + toCover.apply(ahead)
              + "); promoting one would lose data");
    }
    return new Choice(Optional.of(covering.get(0)), "MostAdvanced", "");
  }
}
