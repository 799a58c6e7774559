package dev.bosun.mysql.plan;

import dev.bosun.mysql.client.GtidArithmetic;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Decides the one next step that brings the observed topology closer to one writable primary with
 * every other instance replicating from it. A pure function of its input.
 *
 * <p>Data safety rules: a member with errant transactions is never promoted nor attached; a new
 * primary must hold every transaction any member holds; failover and full-cluster start wait until
 * every member can be observed, because a member that cannot be seen may hold the only copy of an
 * acknowledged commit.
 */
public final class TopologyPlanner {

  private final GtidArithmetic gtids;
  private final Rebuilds rebuilds;
  private final ContentChecking contentChecking;

  /** A planner for one flavour's GTID positions. */
  public TopologyPlanner(GtidArithmetic gtids) {
    this.gtids = gtids;
    this.rebuilds = new Rebuilds(gtids);
    this.contentChecking = new ContentChecking(gtids);
  }

  /** The next step. */
  public Plan plan(TopologyInput in) {
    Map<String, InstanceState> byName =
        in.instances().stream().collect(Collectors.toMap(InstanceState::name, Function.identity()));
    InstanceState primary = in.recordedPrimary() == null ? null : byName.get(in.recordedPrimary());
    Set<String> errant = errant(in, primary);
    // A member being rebuilt (or whose rebuild failed) holds partial data: like an errant one, it
    // is never attached, promoted or switched to.
    Set<String> unusable = new TreeSet<>(errant);
    in.instances().stream()
        .map(InstanceState::name)
        .filter(in.rebuild().state()::holds)
        .forEach(unusable::add);
    // Broken replication: attaching it again would fail the same way (and restart a receiver that
    // acknowledges commits), and as a failover candidate it cannot apply what it received. It
    // waits for its rebuild, automatic or requested.
    in.instances().stream()
        .filter(InstanceState::replicationBroken)
        .map(InstanceState::name)
        .filter(n -> !n.equals(in.recordedPrimary()))
        .forEach(unusable::add);
    return new Plan(next(in, primary, errant, unusable), errant);
  }

  private Step next(
      TopologyInput in, InstanceState primary, Set<String> trulyErrant, Set<String> errant) {
    List<InstanceState> all = in.instances();
    List<InstanceState> writable = all.stream().filter(InstanceState::writable).toList();
    if (primary == null) {
      return noRecordedPrimary(in, errant, writable);
    }
    if (primary.writable() && promotedReadOnlyByFailover(in, primary)) {
      // Opened after a failover promoted it read-only, and the operator stopped before it
      // recorded that: close the promotion's record.
      return new Step.Adopt(primary.name());
    }
    if (primary.writable()) {
      return withWritablePrimary(in, primary, errant)
          .or(() -> contentChecking.next(in, primary, errant))
          .or(() -> rebuilds.next(in, primary, trulyErrant))
          .or(() -> switchoverWaiting(in, primary))
          .orElseGet(Step.Steady::new);
    }
    List<InstanceState> otherWritable =
        writable.stream().filter(w -> !w.name().equals(primary.name())).toList();
    if (otherWritable.size() == 1) {
      // A promotion whose status write was lost: the writable member is the primary.
      return new Step.Adopt(otherWritable.get(0).name());
    }
    if (otherWritable.size() > 1) {
      return splitBrain(otherWritable);
    }
    if (primary.reachable()) {
      return fencedPrimary(in, primary, errant);
    }
    return unreachablePrimary(in, primary, errant);
  }

  private Step noRecordedPrimary(
      TopologyInput in, Set<String> errant, List<InstanceState> writable) {
    if (writable.size() == 1) {
      return new Step.Adopt(writable.get(0).name());
    }
    if (writable.size() > 1) {
      return splitBrain(writable);
    }
    Step wait = waitForEveryone(in, null, "to choose the instance to start from");
    if (wait != null) {
      return wait;
    }
    List<InstanceState> all = in.instances();
    if (all.stream().allMatch(i -> gtids.isEmpty(i.executed()))) {
      InstanceState first =
          all.stream().min(Comparator.comparingInt(InstanceState::ordinal)).orElseThrow();
      return new Step.Promote(first.name(), "Bootstrap");
    }
    List<InstanceState> candidates = all.stream().filter(i -> !errant.contains(i.name())).toList();
    Candidates.Choice choice = Candidates.chooseExcept(candidates, all, errant, gtids);
    if (choice.chosen().isEmpty()) {
      return new Step.Blocked(choice.reason(), choice.message());
    }
    InstanceState chosen = choice.chosen().get();
    return new Step.Promote(
        chosen.name(),
        "FullClusterRestart",
        !contentChecking.comparedBeforeWrites(in, chosen, errant));
  }

  /**
   * What a read-only primary whose server restarted does before it takes writes: replicas follow it
   * and one is compared with it (a primary found lacking rows hands over instead); empty once it
   * may take writes.
   */
  private Optional<Step> beforeWrites(TopologyInput in, InstanceState primary, Set<String> errant) {
    if (!contentChecking.comparedBeforeWrites(in, primary, errant)) {
      return Optional.empty();
    }
    return detachExcluded(in, primary, errant)
        .or(() -> contentChecking.awayFromDifferingPrimary(in, primary, errant))
        .or(() -> attachNext(in, primary, errant))
        .or(() -> contentChecking.next(in, primary, errant))
        .or(() -> Optional.of(ContentChecking.awaitingComparison(in, primary)));
  }

  /** The next step with a writable primary, or empty when only a rebuild may be left to do. */
  private Optional<Step> withWritablePrimary(
      TopologyInput in, InstanceState primary, Set<String> errant) {
    return fenceOtherWritable(in, primary)
        .or(() -> detachExcluded(in, primary, errant))
        .or(() -> Optional.ofNullable(restore(in, primary.name())))
        .or(() -> requestedSwitchover(in, primary, errant))
        .or(() -> contentChecking.awayFromDifferingPrimary(in, primary, errant))
        .or(() -> handOverFromScaledAway(in, primary, errant))
        .or(() -> attachNext(in, primary, errant))
        .or(
            () ->
                primary.semiSyncSourceOn() != in.withReplicas()
                    ? Optional.of(new Step.SemiSync(primary.name(), in.withReplicas()))
                    : Optional.empty());
  }

  /** A member other than the primary that takes writes is fenced first. */
  private static Optional<Step> fenceOtherWritable(TopologyInput in, InstanceState primary) {
    for (InstanceState other : in.instances()) {
      if (!other.name().equals(primary.name()) && other.writable()) {
        return Optional.of(new Step.Fence(other.name()));
      }
    }
    return Optional.empty();
  }

  /** The switchover the spec asks for, or why it is refused. */
  private static Optional<Step> requestedSwitchover(
      TopologyInput in, InstanceState primary, Set<String> errant) {
    String target = in.switchoverTarget();
    if (target == null || target.equals(primary.name())) {
      return Optional.empty();
    }
    InstanceState t =
        in.instances().stream().filter(i -> i.name().equals(target)).findFirst().orElse(null);
    if (t == null || !t.reachable() || errant.contains(target)) {
      return Optional.of(
          new Step.Blocked(
              "SwitchoverRefused",
              "switchover target "
                  + target
                  + (t == null
                      ? " is not an instance of this cluster"
                      : !t.reachable()
                          ? " is unreachable"
                          : " holds errant transactions or is being rebuilt")));
    }
    if (t.ordinal() >= in.desiredInstances()) {
      return Optional.of(
          new Step.Blocked(
              "SwitchoverRefused", "switchover target " + target + " is being scaled away"));
    }
    if (in.content().supported() && ContentChecking.unverified(in.content(), t)) {
      // A member whose data is not known good (restarted, or never compared: a cluster created
      // again over its volumes) would take writes with whatever its recovery lost. The steps that
      // attach and compare it go first; switchoverWaiting says so once nothing else is left.
      return Optional.empty();
    }
    return Optional.of(new Step.Switchover(primary.name(), target, "Requested"));
  }

  /** A requested switchover held back until its target's data is known good, said as a Wait. */
  private static Optional<Step> switchoverWaiting(TopologyInput in, InstanceState primary) {
    String target = in.switchoverTarget();
    return target == null || target.equals(primary.name())
        ? Optional.empty()
        : Optional.of(
            new Step.Wait(
                "SwitchoverWaiting",
                "switching over to "
                    + target
                    + " once its data has been compared with the primary's: its server restarted"
                    + " or its data was never compared"));
  }

  /** A primary being scaled away hands over to the lowest healthy replica that stays. */
  private static Optional<Step> handOverFromScaledAway(
      TopologyInput in, InstanceState primary, Set<String> errant) {
    if (primary.ordinal() < in.desiredInstances()) {
      return Optional.empty();
    }
    Address primaryAddress = in.addresses().get(primary.name());
    Optional<InstanceState> successor =
        in.instances().stream()
            .filter(i -> i.ordinal() < in.desiredInstances())
            .filter(i -> !errant.contains(i.name()))
            .filter(i -> i.replicatesFrom(primaryAddress))
            .min(Comparator.comparingInt(InstanceState::ordinal));
    return Optional.of(
        successor.isPresent()
            ? new Step.Switchover(primary.name(), successor.get().name(), "ScaleDown")
            : new Step.Wait(
                "ScaleDownWaiting",
                "the primary "
                    + primary.name()
                    + " is being scaled away; waiting for a healthy replica to hand over to"));
  }

  /** The first reachable, non-errant member that does not replicate from the primary. */
  private static Optional<Step> attachNext(
      TopologyInput in, InstanceState primary, Set<String> errant) {
    Address primaryAddress = in.addresses().get(primary.name());
    for (InstanceState r : in.instances()) {
      if (r.name().equals(primary.name()) || !r.reachable() || errant.contains(r.name())) {
        continue;
      }
      if (!r.replicatesFrom(primaryAddress)) {
        return Optional.of(new Step.Attach(r.name(), primary.name()));
      }
    }
    return Optional.empty();
  }

  /**
   * A member kept out of the cluster for errant transactions or broken replication that still
   * receives from the primary is stopped receiving (a member being rebuilt is left to its copy).
   */
  private static Optional<Step> detachExcluded(
      TopologyInput in, InstanceState primary, Set<String> unusable) {
    Address primaryAddress = in.addresses().get(primary.name());
    return in.instances().stream()
        .filter(i -> !i.name().equals(primary.name()) && unusable.contains(i.name()))
        .filter(i -> !in.rebuild().state().holds(i.name()))
        .filter(i -> primaryAddress != null && i.receivesFrom(primaryAddress))
        .findFirst()
        .map(i -> new Step.Detach(i.name(), primary.name()));
  }

  /** The restore step while fromBackup is being loaded, else null. */
  private Step restore(TopologyInput in, String primary) {
    RestoreState r = in.restore();
    return switch (r.phase()) {
      case NONE -> null;
      case PENDING -> pendingRestore(in, primary);
      case RUNNING -> new Step.Wait("Restoring", "loading fromBackup into " + primary);
      case DONE -> new Step.RestoreDone(primary, r.detail());
      case FAILED ->
          new Step.Blocked(
              "RestoreFailed",
              "loading fromBackup into "
                  + primary
                  + " failed ("
                  + r.detail()
                  + "); its data may be partial and the load is not run again. Delete the"
                  + " cluster and its PersistentVolumeClaims to restore again");
      case INTERRUPTED ->
          // Loading again would run the dump over what the first load and clients wrote since.
          new Step.Blocked(
              "RestoreInterrupted",
              "loading fromBackup into "
                  + primary
                  + " started and did not finish (the operator stopped); its data may be partial."
                  + " Delete the cluster and its PersistentVolumeClaims to restore again");
    };
  }

  /**
   * A load only into members proven empty: every member answers and none holds a transaction. A
   * cluster re-created over its kept volumes (delete and apply again, a GitOps replace) keeps its
   * data; fromBackup is never loaded over it.
   */
  private Step pendingRestore(TopologyInput in, String primary) {
    List<String> holding =
        in.instances().stream()
            .filter(i -> i.reachable() && !gtids.isEmpty(i.executed()))
            .map(InstanceState::name)
            .toList();
    if (!holding.isEmpty()) {
      return new Step.RestoreSkipped(primary, holding);
    }
    List<String> silent =
        in.instances().stream().filter(i -> !i.reachable()).map(InstanceState::name).toList();
    if (!silent.isEmpty()) {
      return new Step.Wait(
          "Restoring",
          "waiting for "
              + String.join(", ", silent)
              + " to answer before loading fromBackup: a restore goes only into members proven"
              + " empty");
    }
    return new Step.Restore(primary);
  }

  private Step fencedPrimary(TopologyInput in, InstanceState primary, Set<String> errant) {
    // The primary answers but does not take writes: it restarted (members boot read-only), a
    // switchover stopped half-way, or a failover promoted it read-only. Re-open it only if nobody
    // holds more than it does.
    boolean failedOverToIt = promotedReadOnlyByFailover(in, primary);
    if (!failedOverToIt) {
      Step wait = waitForEveryone(in, null, "before the primary takes writes again");
      if (wait != null) {
        return wait;
      }
    }
    // A failover promoted it read-only: it was chosen by what every member but the one it replaced
    // had received, that one can have had nothing acknowledged since (no one receives from it),
    // and no one has taken a write since. So a silent member holds no acknowledged transaction it
    // lacks and is not waited for; one that answers is compared before it takes writes.
    List<InstanceState> observed =
        in.instances().stream().filter(InstanceState::reachable).toList();
    List<InstanceState> candidates =
        observed.stream().filter(i -> !errant.contains(i.name())).toList();
    Candidates.Choice choice = Candidates.chooseExcept(candidates, observed, errant, gtids);
    if (choice.chosen().isEmpty()) {
      return new Step.Blocked(choice.reason(), choice.message());
    }
    InstanceState chosen = choice.chosen().get();
    if (chosen.name().equals(primary.name()) || Candidates.holds(primary, chosen, gtids)) {
      String why = failedOverToIt ? "FailedOverCompared" : "RestartedPrimary";
      return beforeWrites(in, primary, errant)
          .orElseGet(() -> new Step.Promote(primary.name(), why));
    }
    return failover(
        in,
        primary.name(),
        candidates.stream()
            .map(InstanceState::name)
            .filter(n -> !n.equals(primary.name()))
            .toList(),
        errant);
  }

  /**
   * A failover to {@code candidates}. Those whose data is to be compared before they take writes
   * (their server restarted since it was last compared, or another member's did) are promoted
   * read-only if chosen: a crash recovery may have lost rows a position claims, and a member
   * holding them is found only by comparing. Before, such a primary served reads without them until
   * the next comparison.
   */
  private Step.Failover failover(
      TopologyInput in, String oldPrimary, List<String> candidates, Set<String> errant) {
    Set<String> readOnly =
        in.instances().stream()
            .filter(i -> candidates.contains(i.name()))
            .filter(i -> contentChecking.comparedBeforeWrites(in, i, errant))
            .map(InstanceState::name)
            .collect(Collectors.toCollection(TreeSet::new));
    return new Step.Failover(oldPrimary, candidates, readOnly);
  }

  /**
   * Whether a failover promoted {@code primary} read-only and it has not taken writes since (the
   * promotion's intent is still open).
   */
  private static boolean promotedReadOnlyByFailover(TopologyInput in, InstanceState primary) {
    return in.intent() != null && in.intent().candidate().equals(primary.name());
  }

  private Step unreachablePrimary(TopologyInput in, InstanceState primary, Set<String> errant) {
    if (!in.failoverEnabled()) {
      return new Step.Blocked(
          "FailoverDisabled",
          "the primary " + primary.name() + " is unreachable and spec.failover.enabled is false");
    }
    Address primaryAddress = in.addresses().get(primary.name());
    List<String> witnesses =
        in.instances().stream()
            .filter(i -> primaryAddress != null && i.receivesFrom(primaryAddress))
            .map(InstanceState::name)
            .toList();
    if (!witnesses.isEmpty()) {
      // The operator's own link is cut, not the primary: promoting now would make two writable
      // members while clients still reach the old one.
      return new Step.Wait(
          "PrimaryAliveForReplicas",
          "the operator cannot reach the primary "
              + primary.name()
              + " but "
              + String.join(", ", witnesses)
              + " still receive from it: no failover; check the network between the operator and "
              + primary.name());
    }
    boolean resuming = in.intent() != null && primary.name().equals(in.intent().from());
    if (!resuming && in.primaryUnreachableFor().compareTo(in.failoverAfter()) < 0) {
      return new Step.Wait(
          "PrimaryUnreachable",
          "the primary "
              + primary.name()
              + " has been unreachable for "
              + in.primaryUnreachableFor().toSeconds()
              + "s; failover after "
              + in.failoverAfter().toSeconds()
              + "s");
    }
    Step wait = waitForEveryone(in, primary.name(), "before failing over");
    if (wait != null) {
      return wait;
    }
    Step probe = probeThroughSilentReceivers(in, primary, primaryAddress, errant);
    if (probe != null) {
      return probe;
    }
    List<String> candidates =
        in.instances().stream()
            .filter(i -> !i.name().equals(primary.name()))
            .filter(i -> !errant.contains(i.name()))
            .sorted(Comparator.comparingInt(InstanceState::ordinal))
            .map(InstanceState::name)
            .toList();
    if (candidates.isEmpty()) {
      return new Step.Blocked(
          "NoCandidate",
          "the primary "
              + primary.name()
              + " is unreachable and no replica without errant transactions is left to promote");
    }
    List<InstanceState> offered =
        in.instances().stream().filter(i -> candidates.contains(i.name())).toList();
    Step uncovered = uncoveredNonCandidate(in, primary, offered);
    if (uncovered != null) {
      return uncovered;
    }
    return contentChecking
        .soleCandidateUnverified(in, primary, offered)
        .orElseGet(() -> failover(in, primary.name(), candidates, errant));
  }

  /**
   * Before a failover, a replica of the primary whose receiver is off starts it, and the failover
   * waits until it has either connected (the primary lives: no failover, see the witnesses) or
   * failed to. Members start with their receivers off (skip-slave-start) and the operator attaches
   * them only through a primary it reaches, so a replica that restarted while the operator was cut
   * from a living primary cannot witness for it; and with GTIDs its restart discarded its relay
   * log, so a commit it acknowledged may now be only on that primary. Found by the chaos schedule
   * seed 370264. Returns the Attach or the Wait, or null when no receiver is silent.
   */
  private static Step probeThroughSilentReceivers(
      TopologyInput in, InstanceState primary, Address primaryAddress, Set<String> errant) {
    if (primaryAddress == null) {
      return null;
    }
    for (InstanceState i : in.instances()) {
      boolean ofThePrimary =
          i.reachable()
              && i.replicaConfigured()
              && primaryAddress.host().equals(i.sourceHost())
              && primaryAddress.port() == i.sourcePort();
      if (!ofThePrimary
          || i.name().equals(primary.name())
          || errant.contains(i.name())
          || i.ordinal() >= in.desiredInstances()
          || i.lastIoErrno() != 0) {
        continue;
      }
      if (i.ioConnecting()) {
        return new Step.Wait(
            "ConfirmingPrimaryDown",
            "the primary "
                + primary.name()
                + " is unreachable; "
                + i.name()
                + " is trying to connect to it before any failover: if it can, "
                + primary.name()
                + " lives and is not replaced");
      }
      if (!i.ioRunning()) {
        return new Step.Attach(i.name(), primary.name());
      }
    }
    return null;
  }

  /**
   * A Blocked step when a member that may not be promoted (errant, held out for its rebuild,
   * replication broken) received from a source what the candidate a failover would choose lacks,
   * else null. Such a member may be the only replica that acknowledged those commits: a rebuild
   * stops its receiver before its source is proven to hold all it received, and an errant or broken
   * replica may still have received and acknowledged. Promoting the candidate would lose them; the
   * old primary coming back, or the member's receiver being covered, unblocks it.
   */
  private Step uncoveredNonCandidate(
      TopologyInput in, InstanceState primary, List<InstanceState> candidates) {
    Candidates.Choice choice = Candidates.chooseByReceived(candidates, candidates, gtids);
    if (choice.chosen().isEmpty()) {
      // The failover itself finds no complete candidate and says why.
      return null;
    }
    InstanceState chosen = choice.chosen().get();
    for (InstanceState other : in.instances()) {
      if (other.name().equals(primary.name()) || candidates.contains(other) || !other.reachable()) {
        continue;
      }
      String received = gtids.union(other.received(), other.replicated());
      if (!gtids.covers(chosen.held(gtids), received)) {
        return new Step.Blocked(
            "NoCompleteCandidate",
            "the primary "
                + primary.name()
                + " is unreachable and "
                + other.name()
                + ", which may not be promoted, received transactions up to "
                + received
                + " that "
                + chosen.name()
                + " lacks: it may be the only replica that acknowledged them, so no one is"
                + " promoted until "
                + primary.name()
                + " answers again");
      }
    }
    return null;
  }

  /** A Wait when an instance other than {@code except} is missing or unreachable, else null. */
  private static Step waitForEveryone(TopologyInput in, String except, String why) {
    long expected = Math.max(in.desiredInstances(), in.instances().size());
    List<String> missing =
        in.instances().stream()
            .filter(i -> !i.reachable() && !i.name().equals(except))
            .map(InstanceState::name)
            .toList();
    if (!missing.isEmpty() || in.instances().size() < expected) {
      return new Step.Wait(
          "WaitingForInstances",
          "waiting for "
              + (missing.isEmpty() ? "every instance to exist" : String.join(", ", missing))
              + " "
              + why
              + ": an instance that cannot be observed may hold acknowledged transactions");
    }
    return null;
  }

  private static Step splitBrain(List<InstanceState> writable) {
    return new Step.Blocked(
        "SplitBrain",
        "several instances take writes ("
            + writable.stream().map(InstanceState::name).collect(Collectors.joining(", "))
            + ") and none is recorded as the primary; fence all but one by hand");
  }

  private Set<String> errant(TopologyInput in, InstanceState primary) {
    Set<String> errant = new TreeSet<>();
    for (InstanceState i : in.instances()) {
      if (primary != null && i.name().equals(primary.name())) {
        continue;
      }
      // With a writable primary to compare against, the check is complete and a rebuilt member
      // is cleared; without one (failover, restart) what was found before still holds.
      boolean authoritative = primary != null && primary.writable() && i.reachable();
      if (!authoritative && in.knownErrant().contains(i.name())) {
        errant.add(i.name());
        continue;
      }
      if (i.reachable() && isErrant(in, primary, i)) {
        errant.add(i.name());
      }
    }
    return errant;
  }

  private boolean isErrant(TopologyInput in, InstanceState primary, InstanceState i) {
    if (i.diverged()) {
      return true;
    }
    if (in.content().differing().containsKey(i.name())) {
      // Its data differed from the primary's after its server restarted: whatever its position
      // says, it lacks or adds rows, and only a rebuild makes it a copy again.
      return true;
    }
    boolean returningOldPrimary = i.name().equals(in.previousPrimary()) && !i.replicaConfigured();
    if (returningOldPrimary
        && in.promotionGtid() != null
        && gtids.hasBeyond(i.binlog(), in.promotionGtid())) {
      // Transactions it wrote after the last one the new primary had when it was promoted.
      return true;
    }
    if (gtids.tracksReplicatedPosition()
        && i.replicaConfigured()
        && gtids.hasBeyond(i.binlog(), gtids.union(i.replicated(), i.received()))) {
      // A replica whose binlog holds more than it received: local writes. The applier logs a
      // transaction before it records it as applied, so a binlog position read while it commits
      // is briefly ahead of the applied one; what it received (read after the binlog) is not.
      return true;
    }
    if (primary != null && primary.writable() && !returningOldPrimary) {
      // Observed after the replicas, so a healthy replica is never ahead of the primary.
      return gtids.hasBeyond(i.executed(), primary.executed());
    }
    return false;
  }
}
