package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides when a member's data is compared with the primary's: after its server restarted, since a
 * crash recovery can leave a member without a transaction its GTID position claims (chaos seed
 * 840758) or holding rows twice. A pure function of the planner's input, asked only when the
 * cluster has a writable primary and nothing else is to be done.
 *
 * <p>Rules: the side whose server restarted is the suspect; a replica found to differ from a
 * primary that did not restart is kept out as errant until it is rebuilt; a primary found to differ
 * from a replica that did not restart is reported, never acted on (which copy is right is for a
 * person to judge); when both restarted, a difference is reported for both and nobody is kept out.
 * Only a replica that follows the primary and has applied all it received is compared: its applier
 * is pinned at the primary's snapshot for an instant.
 */
public final class ContentChecking {

  /**
   * Two looks at one server's start differ by up to this much: the start is computed from the
   * current time and the uptime, both in whole seconds.
   */
  static final long START_TOLERANCE_SECONDS = 2;

  /**
   * The start recorded for a member once a member it was found the same as was found to lack rows:
   * not known good, compared again.
   */
  public static final long DISPROVED = 0;

  private final GtidArithmetic gtids;

  ContentChecking(GtidArithmetic gtids) {
    this.gtids = gtids;
  }

  /** The content step to take now, if any. */
  Optional<Step> next(TopologyInput in, InstanceState primary, Set<String> kept) {
    ContentState c = in.content();
    // A replica resting after a comparison that could not be made is passed over, not waited for.
    Set<String> excluded = new HashSet<>(kept);
    excluded.addAll(c.resting());
    if (c.finished() != null) {
      return Optional.of(new Step.ContentChecked(c.finished()));
    }
    if (c.running() != null) {
      return Optional.empty();
    }
    if (c.differing().containsKey(primary.name())) {
      // A primary found lacking rows judges nobody: a member found the same as it would be taken
      // as known good and could be handed the primary. It hands over first (or a person decides).
      return Optional.empty();
    }
    // Never compared (a new cluster, one created again over its volumes, an operator upgrade) or
    // restarted since: either way its data is not known good.
    List<InstanceState> unverified =
        members(in).stream()
            .filter(i -> unverified(c, i) && !c.differing().containsKey(i.name()))
            .sorted(Comparator.comparingInt(InstanceState::ordinal))
            .toList();
    if (unverified.isEmpty()) {
      return Optional.empty();
    }
    if (!c.supported()) {
      return Optional.of(new Step.RecordServerStarts(starts(unverified), "Unsupported"));
    }
    boolean primaryUnverified = unverified.stream().anyMatch(i -> i.name().equals(primary.name()));
    if (primaryUnverified) {
      // The primary first, against a replica known good: once it is known good too, each
      // unverified replica has a trusted side to be judged against.
      List<InstanceState> knownGood =
          members(in).stream()
              .filter(i -> !i.name().equals(primary.name()) && !unverified(c, i))
              .filter(i -> !kept.contains(i.name()) && !c.differing().containsKey(i.name()))
              .sorted(Comparator.comparingInt(InstanceState::ordinal))
              .toList();
      Optional<InstanceState> partner =
          knownGood.stream().filter(i -> comparable(in, primary, i, excluded)).findFirst();
      if (partner.isPresent()) {
        return Optional.of(check(c, partner.get(), primary, primary.name()));
      }
      if (!knownGood.isEmpty()) {
        // One is there, not caught up, not following yet or resting after a failed comparison:
        // wait for it rather than compare two sides neither of which is known good.
        return Optional.empty();
      }
    }
    for (InstanceState r : unverified) {
      if (!r.name().equals(primary.name()) && comparable(in, primary, r, excluded)) {
        return Optional.of(check(c, r, primary, primaryUnverified ? null : r.name()));
      }
    }
    if (!primaryUnverified) {
      // Unverified replicas that do not follow the primary yet: compared once they do.
      return Optional.empty();
    }
    // A cluster of one has nothing to compare its primary with. Any other primary waits for a
    // replica to follow it again, however long the others are down or kept out: taking it as known
    // good because none answered now let a lossy primary, promoted as the only candidate, wipe the
    // acknowledged row the replicas still held when they came back (chaos seed 862757).
    return in.desiredInstances() <= 1
        ? Optional.of(
            new Step.RecordServerStarts(Map.of(primary.name(), primary.startedAt()), "Alone"))
        : Optional.empty();
  }

  /**
   * A Wait when a failover's only candidate is not known good: its server started since its data
   * was last found the same as the primary's (or it was never compared), so its crash recovery may
   * have left it without rows its position claims. With nobody else to compare it with, promoting
   * it would serve clients without those rows until the old primary came back and the comparison
   * made it hand over (chaos seed 862757). Waiting for another member costs no acknowledged write:
   * a primary without a replica has none of its commits acknowledged by semi-sync.
   */
  Optional<Step> soleCandidateUnverified(
      TopologyInput in, InstanceState primary, List<InstanceState> candidates) {
    if (!in.content().supported() || candidates.size() != 1) {
      return Optional.empty();
    }
    InstanceState only = candidates.get(0);
    if (!unverified(in.content(), only)) {
      return Optional.empty();
    }
    Long last = in.content().verifiedStarts().get(only.name());
    return Optional.of(
        new Step.Wait(
            "CandidateNotKnownGood",
            "the primary "
                + primary.name()
                + " is unreachable and "
                + only.name()
                + ", the only member left to promote, "
                + (last == null
                    ? "has never had its data compared with a primary's"
                    : last == DISPROVED
                        ? "was last found the same as a member since found to lack rows"
                        : "restarted since its data was last compared with the primary's")
                + ": its crash recovery may have lost rows its position claims, and with no other"
                + " member to compare it with, it is not promoted until "
                + primary.name()
                + " or another member answers"));
  }

  /**
   * Whether a read-only primary about to take writes has data compared first: its own (its server
   * restarted since it was last found the same, it was never compared, or it was found lacking
   * rows) or any other member's that is not known good. Opened at once, a crash recovery that lost
   * rows served reads without them until a comparison made it hand over (chaos seed 614468, after a
   * full-cluster restart); opened after agreeing with one replica that had lost the same row, it
   * served them until the third member, the only one holding it, was compared. Waiting costs writes
   * the time of those comparisons; a primary with no member left to compare with (a cluster of one,
   * every other member kept out) is opened as before.
   */
  boolean comparedBeforeWrites(TopologyInput in, InstanceState primary, Set<String> kept) {
    ContentState c = in.content();
    if (!c.supported() || in.desiredInstances() <= 1) {
      return false;
    }
    List<InstanceState> others =
        in.instances().stream()
            .filter(i -> !i.name().equals(primary.name()) && i.reachable())
            .filter(i -> i.ordinal() < in.desiredInstances())
            .filter(i -> !kept.contains(i.name()) && !c.differing().containsKey(i.name()))
            .toList();
    if (c.differing().containsKey(primary.name())) {
      // It hands over to a member known good; with none, it takes writes as before (the Warning
      // said so) rather than hold them for a member that may never come.
      return others.stream().anyMatch(i -> !unverified(c, i));
    }
    return !others.isEmpty()
        && (unverified(c, primary) || others.stream().anyMatch(i -> unverified(c, i)));
  }

  /** The Wait of a read-only primary whose data is being, or is to be, compared. */
  static Step.Wait awaitingComparison(TopologyInput in, InstanceState primary) {
    String running = in.content().running();
    return new Step.Wait(
        "PrimaryNotKnownGood",
        "the primary "
            + primary.name()
            + " takes no writes until its data is compared with every other member's: a crash"
            + " recovery may have lost rows a position claims, and a member holding rows the"
            + " primary lacks is found only by comparing"
            + (running == null
                ? "; waiting for the members not compared yet to follow it"
                : " (comparing with " + running + " now)"));
  }

  /**
   * A primary whose data differed, after its server restarted, from a replica that kept running
   * hands over to the lowest such replica that follows it; none when no such replica follows it now
   * (the Warning said so; a person may switch over).
   */
  Optional<Step> awayFromDifferingPrimary(
      TopologyInput in, InstanceState primary, Set<String> excluded) {
    ContentState c = in.content();
    if (!c.differing().containsKey(primary.name())) {
      return Optional.empty();
    }
    Address primaryAddress = in.addresses().get(primary.name());
    return in.instances().stream()
        .filter(i -> !i.name().equals(primary.name()) && i.ordinal() < in.desiredInstances())
        .filter(i -> i.reachable() && !excluded.contains(i.name()))
        .filter(i -> !c.differing().containsKey(i.name()) && !unverified(c, i))
        .filter(i -> primaryAddress != null && i.replicatesFrom(primaryAddress))
        .min(Comparator.comparingInt(InstanceState::ordinal))
        .map(t -> new Step.Switchover(primary.name(), t.name(), "DataDiffers"));
  }

  /** Members in the spec's range whose server answered with its start. */
  private static List<InstanceState> members(TopologyInput in) {
    return in.instances().stream()
        .filter(i -> i.reachable() && i.startedAt() > 0 && i.ordinal() < in.desiredInstances())
        .toList();
  }

  /**
   * Whether the member's data is not known good: never compared, or its server started since it was
   * last found the same. Unknown for a member whose start is unknown (it did not answer).
   */
  static boolean unverified(ContentState c, InstanceState i) {
    if (i.startedAt() <= 0) {
      return false;
    }
    return !sameStart(c.verifiedStarts().get(i.name()), i.startedAt());
  }

  /**
   * Whether a server that started at {@code startedAt} (epoch seconds) is the one whose data was
   * found the same at {@code verifiedStart} (null: never compared).
   */
  public static boolean sameStart(Long verifiedStart, long startedAt) {
    return verifiedStart != null && Math.abs(startedAt - verifiedStart) <= START_TOLERANCE_SECONDS;
  }

  /**
   * A replica whose data can be pinned against the primary's now: it follows the primary and has
   * applied everything it received, so pinning stops its applier for an instant only.
   */
  private boolean comparable(
      TopologyInput in, InstanceState primary, InstanceState r, Set<String> excluded) {
    Address primaryAddress = in.addresses().get(primary.name());
    return !excluded.contains(r.name())
        && primaryAddress != null
        && r.replicatesFrom(primaryAddress)
        && gtids.covers(r.executed(), r.received());
  }

  private static Step.CheckContent check(
      ContentState c, InstanceState r, InstanceState p, String suspect) {
    Long last = suspect == null ? null : c.verifiedStarts().get(suspect);
    String why =
        suspect == null
            ? "NeitherKnownGood"
            : last == null ? "NeverCompared" : last == DISPROVED ? "Disproved" : "Restarted";
    return new Step.CheckContent(r.name(), p.name(), suspect, why, r.startedAt(), p.startedAt());
  }

  private static Map<String, Long> starts(List<InstanceState> members) {
    Map<String, Long> m = new TreeMap<>();
    members.forEach(i -> m.put(i.name(), i.startedAt()));
    return m;
  }
}
