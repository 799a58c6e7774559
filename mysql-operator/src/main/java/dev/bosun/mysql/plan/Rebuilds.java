package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Decides whether a replica is rebuilt next, from which source, or why not. A pure function of the
 * planner's input, asked only when the cluster has a writable primary.
 *
 * <p>Safety rules: never the primary; one member at a time; only from a healthy replica that
 * follows the primary (not the primary itself, whose load the copy would add to, unless every other
 * replica answers and is kept out: then it is the one copy left) and already holds everything the
 * member received from the primary, so wiping the member never leaves an acknowledged commit with
 * fewer copies than semi-sync gave it; never from a member whose server restarted and whose data
 * has not been compared since.
 */
public final class Rebuilds {

  /** Reasons a rebuild is refused or cannot finish. */
  static final String REFUSED = "RebuildRefused";

  static final String FAILED = "RebuildFailed";

  /** How long after a rebuild the same member is not rebuilt automatically again. */
  static final Duration REPEAT_AFTER = Duration.ofHours(24);

  /** The annotation on a MySQLCluster through which a person asks for a member's rebuild. */
  public static final String REQUEST_ANNOTATION = "mysql.bosun.dev/rebuild";

  private final GtidArithmetic gtids;

  Rebuilds(GtidArithmetic gtids) {
    this.gtids = gtids;
  }

  /** The rebuild step to take now, if any. */
  Optional<Step> next(TopologyInput in, InstanceState primary, Set<String> errant) {
    RebuildPolicy policy = in.rebuild();
    RebuildState state = policy.state();
    return switch (state.phase()) {
      case RUNNING ->
          Optional.of(
              new Step.Wait("Rebuilding", "copying a healthy replica into " + state.member()));
      case DONE -> Optional.of(new Step.RebuildDone(state.member(), null));
      case FAILED -> Optional.of(new Step.RebuildDone(state.member(), state.detail()));
      case INTERRUPTED ->
          member(in, state.member()) == null
              // Scaled away meanwhile: if it comes back, its volume holds a partial copy.
              ? Optional.of(
                  new Step.RebuildDone(
                      state.member(), "the member was scaled away before its rebuild finished"))
              // The member was being wiped or loaded when the operator stopped: start it again.
              : Optional.of(start(in, primary, errant, member(in, state.member()), "Resumed"));
      case REPLACING_VOLUME -> replacing(in, primary, errant, state.member());
      case NONE -> fresh(in, primary, errant);
      case ABANDONED ->
          state.member().equals(policy.requested()) || member(in, state.member()) == null
              ? fresh(in, primary, errant)
              : Optional.of(
                  new Step.Blocked(
                      FAILED,
                      "rebuilding "
                          + state.member()
                          + " failed ("
                          + state.detail()
                          + "); it is kept out of the cluster and no other member is rebuilt"
                          + " until it is. Fix the cause and request its rebuild again with the"
                          + " annotation "
                          + REQUEST_ANNOTATION
                          + "="
                          + state.member()));
    };
  }

  private Optional<Step> fresh(TopologyInput in, InstanceState primary, Set<String> errant) {
    RebuildPolicy policy = in.rebuild();
    if (policy.requested() != null) {
      return requested(in, primary, errant);
    }
    return policy.automatic() ? automatic(in, primary, errant) : Optional.empty();
  }

  /** A rebuild a person asked for with the annotation. */
  private Optional<Step> requested(TopologyInput in, InstanceState primary, Set<String> errant) {
    RebuildPolicy policy = in.rebuild();
    InstanceState target = member(in, policy.requested());
    if (target == null) {
      return refused(policy.requested() + " is not an instance of this cluster");
    }
    if (target.name().equals(primary.name())) {
      return refused(
          target.name()
              + " is the primary and is never rebuilt; switch over to another member first");
    }
    if (!target.reachable() && policy.unrecoverable().containsKey(target.name())) {
      return Optional.of(replaceVolume(in, primary, errant, target));
    }
    return Optional.of(start(in, primary, errant, target, "Requested"));
  }

  /**
   * The first broken member (errant, replication broken, or a server that cannot start on its data)
   * not rebuilt within {@link #REPEAT_AFTER}; one broken again sooner blocks with a reason.
   */
  private Optional<Step> automatic(TopologyInput in, InstanceState primary, Set<String> errant) {
    RebuildPolicy policy = in.rebuild();
    List<InstanceState> broken = broken(in, primary, errant);
    Optional<InstanceState> target =
        broken.stream().filter(i -> !policy.rebuiltWithin(i.name(), REPEAT_AFTER)).findFirst();
    if (target.isPresent() && !target.get().reachable()) {
      return Optional.of(replaceVolume(in, primary, errant, target.get()));
    }
    if (target.isPresent()) {
      InstanceState t = target.get();
      return Optional.of(
          start(
              in,
              primary,
              errant,
              t,
              errantAfter(in, primary, errant, t) != null
                  ? "ErrantTransactions"
                  : in.content().differing().containsKey(t.name())
                      ? "DataDiffers"
                      : "ReplicationBroken"));
    }
    // Broken again soon after an automatic rebuild: the cause is elsewhere, and copying again
    // and again would only load the source.
    return broken.stream().findFirst().map(t -> brokenAgain(policy, t));
  }

  private static Step brokenAgain(RebuildPolicy policy, InstanceState t) {
    return blocked(
        t.name()
            + " needs a rebuild again "
            + policy.sinceLastRebuilt().toMinutes()
            + " minutes after its last one; it is not repeated automatically within "
            + REPEAT_AFTER.toHours()
            + " hours. Find the cause, then request it with the annotation "
            + REQUEST_ANNOTATION
            + "="
            + t.name());
  }

  /** The replicas a rebuild would fix, in order: errant or broken first, then unstartable. */
  private static List<InstanceState> broken(
      TopologyInput in, InstanceState primary, Set<String> errant) {
    RebuildPolicy policy = in.rebuild();
    List<InstanceState> broken =
        in.instances().stream()
            .filter(i -> !i.name().equals(primary.name()))
            .filter(i -> i.ordinal() < in.desiredInstances())
            .filter(i -> i.reachable() && (errant(in, errant, i) || i.replicationBroken()))
            .sorted(Comparator.comparingInt(InstanceState::ordinal))
            .toList();
    // Then members whose server cannot even start on its data: a copy needs a running server,
    // so they get a new volume first.
    broken =
        Stream.concat(
                broken.stream(),
                in.instances().stream()
                    .filter(i -> !i.name().equals(primary.name()))
                    .filter(i -> i.ordinal() < in.desiredInstances())
                    .filter(i -> !i.reachable() && policy.unrecoverable().containsKey(i.name()))
                    .sorted(Comparator.comparingInt(InstanceState::ordinal)))
            .toList();
    return broken;
  }

  /**
   * A member whose volume is being replaced: again while it does not answer (the replacement is
   * safe to repeat), and rebuilt by copy once it answers on its new volume.
   */
  private Optional<Step> replacing(
      TopologyInput in, InstanceState primary, Set<String> errant, String name) {
    InstanceState member = member(in, name);
    if (member == null) {
      return Optional.of(
          new Step.RebuildDone(name, "the member was scaled away before it started again"));
    }
    if (!member.reachable()) {
      return Optional.of(
          new Step.ReplaceVolume(
              name,
              in.rebuild()
                  .unrecoverable()
                  .getOrDefault(name, "its server could not finish crash recovery")));
    }
    return Optional.of(start(in, primary, errant, member, "CrashRecoveryFailed"));
  }

  /**
   * A new volume for a member whose server cannot start on its data, under the rules of a copy: it
   * is never the primary, the cluster supports rebuilds, and a healthy replica that follows the
   * primary is there to copy from afterwards (else the member would stay empty and out).
   */
  private Step replaceVolume(
      TopologyInput in, InstanceState primary, Set<String> errant, InstanceState target) {
    RebuildPolicy policy = in.rebuild();
    if (policy.unsupported() != null) {
      return new Step.Blocked("RebuildUnsupported", policy.unsupported());
    }
    if (followers(in, primary, errant, target).findAny().isEmpty()) {
      return blocked(
          target.name()
              + " "
              + policy.unrecoverable().get(target.name())
              + ", and no healthy replica that follows the primary "
              + primary.name()
              + " is there to copy it from afterwards; its volume is kept as it is");
    }
    return new Step.ReplaceVolume(target.name(), policy.unrecoverable().get(target.name()));
  }

  /**
   * Errant in this round and the one before (the status recorded it): a replica's binlog and
   * received positions are read in one query but not atomically, so a transaction being applied can
   * look like a local write for an instant, and a rebuild is no answer to an instant.
   */
  private static boolean errant(TopologyInput in, Set<String> errant, InstanceState i) {
    return errant.contains(i.name()) && in.knownErrant().contains(i.name());
  }

  private Step start(
      TopologyInput in,
      InstanceState primary,
      Set<String> errant,
      InstanceState target,
      String why) {
    RebuildPolicy policy = in.rebuild();
    if (target == null || !target.reachable()) {
      return blocked(
          (target == null ? "the member" : target.name())
              + " cannot be reached; it is rebuilt once it answers");
    }
    if (policy.unsupported() != null) {
      return new Step.Blocked("RebuildUnsupported", policy.unsupported());
    }
    String errantAfter = errantAfter(in, primary, errant, target);
    if (errantAfter != null && !policy.canKeepErrant()) {
      return blocked(
          target.name()
              + " holds errant transactions and the operator has no backup volume to export them"
              + " to (chart value backupVolume.claimName); nothing is wiped");
    }
    // What the member received that the primary also has: an acknowledged commit may have its
    // only replica copy there. Errant transactions are exported instead.
    String mustHold =
        gtids.common(gtids.union(target.replicated(), target.received()), primary.executed());
    Optional<InstanceState> source =
        sources(in, primary, errant, target).max(Comparator.comparing(i -> i, this::moreCurrent));
    Optional<InstanceState> unverified = unverifiedSources(in, primary, errant, target).findFirst();
    if (source.isEmpty() && unverified.isPresent()) {
      return new Step.Wait(
          "RebuildWaiting",
          "waiting for the data of "
              + unverified.get().name()
              + ", whose server restarted, to be compared with the primary's before it is copied"
              + " into "
              + target.name());
    }
    if (source.isEmpty() && everyOtherReplicaIsKeptOut(in, primary, target)) {
      // No replica will heal by itself (each is errant, differs or is broken, none merely down):
      // the primary is the one copy left, and copying it is the way back to a replica.
      source = Optional.of(primary);
    }
    if (source.isEmpty()) {
      return blocked(
          "no healthy replica to copy "
              + target.name()
              + " from: a rebuild copies from a replica that follows the primary "
              + primary.name()
              + ", never from the primary; "
              + target.name()
              + " is kept as it is");
    }
    if (!gtids.isEmpty(mustHold) && !gtids.covers(source.get().held(gtids), mustHold)) {
      return new Step.Wait(
          "RebuildWaiting",
          "waiting for "
              + source.get().name()
              + " to receive everything "
              + target.name()
              + " received before "
              + target.name()
              + " is wiped");
    }
    return new Step.Rebuild(target.name(), source.get().name(), why, errantAfter);
  }

  /**
   * The members a copy into {@code target} may come from: healthy replicas that follow the primary,
   * never the primary itself nor a member held out by a rebuild.
   */
  private static Stream<InstanceState> sources(
      TopologyInput in, InstanceState primary, Set<String> errant, InstanceState target) {
    // Never a member whose server restarted and whose data has not been compared since: a copy of
    // it would carry whatever its recovery lost.
    return followers(in, primary, errant, target)
        .filter(i -> !ContentChecking.unverified(in.content(), i));
  }

  /**
   * Whether every member but the primary and {@code target} answers and is kept out (errant, its
   * data differing, its replication broken, or held for a rebuild): none of them can become a
   * source by waiting, unlike a member that is only down.
   */
  private static boolean everyOtherReplicaIsKeptOut(
      TopologyInput in, InstanceState primary, InstanceState target) {
    return in.instances().stream()
        .filter(i -> !i.name().equals(primary.name()) && !i.name().equals(target.name()))
        .filter(i -> i.ordinal() < in.desiredInstances())
        .allMatch(
            i ->
                i.reachable()
                    && (in.knownErrant().contains(i.name())
                        || in.content().differing().containsKey(i.name())
                        || i.replicationBroken()
                        || in.rebuild().state().holds(i.name())));
  }

  /** Followers that would be sources but for a restart whose comparison is still to come. */
  private static Stream<InstanceState> unverifiedSources(
      TopologyInput in, InstanceState primary, Set<String> errant, InstanceState target) {
    return followers(in, primary, errant, target)
        .filter(i -> ContentChecking.unverified(in.content(), i));
  }

  private static Stream<InstanceState> followers(
      TopologyInput in, InstanceState primary, Set<String> errant, InstanceState target) {
    Address primaryAddress = in.addresses().get(primary.name());
    return in.instances().stream()
        .filter(i -> !i.name().equals(target.name()) && !i.name().equals(primary.name()))
        .filter(i -> i.reachable() && !errant.contains(i.name()) && !i.replicationBroken())
        .filter(i -> primaryAddress != null && i.replicatesFrom(primaryAddress))
        .filter(i -> !in.rebuild().state().holds(i.name()));
  }

  /**
   * Where the member's own history ends: its binlog's transactions beyond this are errant and
   * exported. For a returning old primary, the point its successor was promoted at; otherwise the
   * lowest of what the primary holds and what the member last received from a source (MariaDB keeps
   * that position through a reset of the replica settings), so nothing errant is left out.
   */
  private String errantAfter(
      TopologyInput in, InstanceState primary, Set<String> errant, InstanceState target) {
    if (!errant.contains(target.name())) {
      return null;
    }
    if (!target.history().isEmpty() && gtids.historyCovers(primary.history(), target.history())) {
      // The primary holds every transaction of its history: nothing of its own to export. A copy
      // interrupted after it gave the member the snapshot's history leaves it so; its position,
      // beyond an old primary's promotion point, still looked errant, and the resumed rebuild
      // failed finding nothing to export (chaos seed 107277).
      return null;
    }
    String ref = reference(in, primary, target);
    // Diverged replication alone (an emptied member, say) leaves nothing of its own to export.
    return gtids.hasBeyond(target.binlog(), ref) ? ref : null;
  }

  /**
   * Where the member's own history ends. A returning old primary: the point its successor was
   * promoted at. A replica: the lower of the primary's position and what the member last received
   * from a source (both points of the primary's history; MariaDB keeps the received position
   * through a reset of the replica settings). Anything else: nothing is taken as shared, and its
   * whole binlog is exported.
   */
  private String reference(TopologyInput in, InstanceState primary, InstanceState target) {
    if (target.name().equals(in.previousPrimary())
        && !target.replicaConfigured()
        && in.promotionGtid() != null) {
      return in.promotionGtid();
    }
    if (gtids.tracksReplicatedPosition() && target.replicaConfigured()) {
      return gtids.common(target.replicated(), primary.executed());
    }
    return "";
  }

  private int moreCurrent(InstanceState a, InstanceState b) {
    String ha = a.held(gtids);
    String hb = b.held(gtids);
    if (gtids.covers(ha, hb) && !gtids.covers(hb, ha)) {
      return 1;
    }
    if (gtids.covers(hb, ha) && !gtids.covers(ha, hb)) {
      return -1;
    }
    // Equal (or not comparable): the lower ordinal wins, so the choice is stable.
    return Integer.compare(b.ordinal(), a.ordinal());
  }

  private static InstanceState member(TopologyInput in, String name) {
    return in.instances().stream().filter(i -> i.name().equals(name)).findFirst().orElse(null);
  }

  private static Optional<Step> refused(String message) {
    return Optional.of(blocked(message));
  }

  private static Step blocked(String message) {
    return new Step.Blocked(REFUSED, message);
  }
}
