package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Chooses who becomes the primary: the candidate whose executed position contains every other
 * member's, never an empty or older one. Used for failover and for a full-cluster restart.
 */
public final class Candidates {

  /** Ties go to the lowest ordinal. */
  private static final Comparator<InstanceState> BY_ORDINAL =
      Comparator.comparingInt(InstanceState::ordinal);

  private Candidates() {}

  /** The outcome: the chosen instance, or why none can be chosen. */
  public record Choice(Optional<InstanceState> chosen, String reason, String message) {}

  /**
   * Chooses among {@code candidates} one that holds everything every member in {@code all}
   * (candidates included) holds, positions and histories; ties go to the lowest ordinal.
   */
  public static Choice choose(
      List<InstanceState> candidates, List<InstanceState> all, GtidArithmetic gtids) {
    return choose(
        candidates,
        all,
        gtids,
        (c, o) -> holds(c, o, gtids),
        InstanceState::executed,
        true,
        BY_ORDINAL);
  }

  /**
   * Like {@link #choose}, for a start without a writable primary (a full-cluster or primary
   * restart, a cluster re-created over its volumes): of a member in {@code errant} only what came
   * to it from a source (received or applied as a replica) must be covered. Its own local writes
   * are nobody's acknowledged commits; demanding them would block every restart of a cluster with
   * an errant member wherever GTIDs are sets (MySQL: its local writes carry its own server UUID,
   * which no other member can hold), while what it received, and may have acknowledged, must still
   * not be lost. Every other member's whole history must be held: with no promotion point recorded
   * (a new status), two members may hold histories that forked, and the one with the higher
   * sequence number is not the one that holds the other's.
   */
  public static Choice chooseExcept(
      List<InstanceState> candidates,
      List<InstanceState> all,
      Set<String> errant,
      GtidArithmetic gtids) {
    Function<InstanceState, String> received = o -> gtids.union(o.received(), o.replicated());
    return choose(
        candidates,
        all,
        gtids,
        (c, o) ->
            errant.contains(o.name())
                ? gtids.covers(c.executed(), received.apply(o))
                : holds(c, o, gtids),
        o -> errant.contains(o.name()) ? received.apply(o) : o.executed(),
        true,
        BY_ORDINAL);
  }

  /**
   * Chooses by what each member received, not only applied: semi-sync acknowledges on receipt, so
   * an acknowledged commit may so far be only in a replica's relay log. The chosen one must then
   * apply all of it before it takes writes. (Failover candidates all followed the recorded primary:
   * their received positions say it all; binlog histories would not count the relay logs.)
   */
  public static Choice chooseByReceived(
      List<InstanceState> candidates, List<InstanceState> all, GtidArithmetic gtids) {
    return chooseByReceived(candidates, all, gtids, i -> false);
  }

  /**
   * Like {@link #chooseByReceived(List, List, GtidArithmetic)}, and of the candidates that hold all
   * of it (so hold the same) one that is {@code preferred} goes first: the failover prefers a
   * member whose data is known good to one whose server restarted since it was last compared, which
   * may lack rows its position claims.
   */
  public static Choice chooseByReceived(
      List<InstanceState> candidates,
      List<InstanceState> all,
      GtidArithmetic gtids,
      Predicate<InstanceState> preferred) {
    return choose(
        candidates,
        all,
        gtids,
        (c, o) -> gtids.covers(c.held(gtids), o.held(gtids)),
        i -> i.held(gtids),
        false,
        Comparator.comparing((InstanceState i) -> !preferred.test(i)).thenComparing(BY_ORDINAL));
  }

  /**
   * Whether {@code a} holds everything {@code b} executed: its position covers b's and its history
   * holds b's (MariaDB: the last GTID of every server in b's binlog state).
   */
  public static boolean holds(InstanceState a, InstanceState b, GtidArithmetic gtids) {
    return gtids.covers(a.executed(), b.executed())
        && gtids.historyCovers(a.history(), b.history());
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
      BiPredicate<InstanceState, InstanceState> holds,
      Function<InstanceState, String> shown,
      boolean histories,
      Comparator<InstanceState> order) {
    if (candidates.isEmpty()) {
      return new Choice(
          Optional.empty(), "NoCandidate", "no reachable instance without errant transactions");
    }
    List<InstanceState> covering =
        candidates.stream()
            .filter(c -> all.stream().allMatch(o -> holds.test(c, o)))
            .sorted(order)
            .toList();
    if (!covering.isEmpty()) {
      return new Choice(Optional.of(covering.get(0)), "MostAdvanced", "");
    }
    if (histories) {
      Optional<Choice> diverged = diverged(candidates, holds, gtids);
      if (diverged.isPresent()) {
        return diverged.get();
      }
    }
    InstanceState ahead =
        all.stream()
            .filter(o -> candidates.stream().noneMatch(c -> holds.test(c, o)))
            .findFirst()
            .orElse(candidates.get(0));
    return new Choice(
        Optional.empty(),
        "NoCompleteCandidate",
        "no candidate holds every transaction of "
            + ahead.name()
            + " (at "
            + shown.apply(ahead)
            + "); promoting one would lose data");
  }

  /**
   * Two candidates (the lowest ordinals first) neither of which holds the other's history:
   * whichever is promoted, the other's transactions, which may have been acknowledged, are lost.
   * Only a person can say which history to keep.
   */
  private static Optional<Choice> diverged(
      List<InstanceState> candidates,
      BiPredicate<InstanceState, InstanceState> holds,
      GtidArithmetic gtids) {
    List<InstanceState> byOrdinal =
        candidates.stream().sorted(Comparator.comparingInt(InstanceState::ordinal)).toList();
    for (int i = 0; i < byOrdinal.size(); i++) {
      for (int j = i + 1; j < byOrdinal.size(); j++) {
        InstanceState a = byOrdinal.get(i);
        InstanceState b = byOrdinal.get(j);
        if (!holds.test(a, b) && !holds.test(b, a)) {
          return Optional.of(
              new Choice(Optional.empty(), "DivergedHistories", divergedText(a, b, gtids)));
        }
      }
    }
    return Optional.empty();
  }

  private static String divergedText(InstanceState a, InstanceState b, GtidArithmetic gtids) {
    String common = gtids.historyCommon(a.history(), b.history());
    return a.name()
        + " and "
        + b.name()
        + " hold different histories "
        + (common.isEmpty() ? "from their first transactions" : "after " + common)
        + ": "
        + a.name()
        + " has "
        + beyond(a, b, gtids)
        + ", which "
        + b.name()
        + " lacks, and "
        + b.name()
        + " has "
        + beyond(b, a, gtids)
        + ", which "
        + a.name()
        + " lacks. Promoting either would lose transactions of the other, which may have been"
        + " acknowledged, so neither is promoted. Keep one history and rebuild the member holding"
        + " the other: delete that member's PersistentVolumeClaim and Pod, and it copies the kept"
        + " history by replication onto an empty volume (its own transactions are then gone)";
  }

  /** What {@code a} has beyond {@code b}: history entries, or its position when they agree. */
  private static String beyond(InstanceState a, InstanceState b, GtidArithmetic gtids) {
    String more = gtids.historyBeyond(a.history(), b.history());
    return "transactions up to " + (more.isEmpty() ? a.executed() : more);
  }
}
