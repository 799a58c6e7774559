package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.GtidArithmetic;
import dev.bosun.mysql.plan.Candidates;
import dev.bosun.mysql.plan.ContentChecking;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.PromotionIntent;
import dev.bosun.mysql.plan.Step;
import dev.bosun.mysql.plan.StepText;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The order of a failover, as MOCO fences: every other member stops receiving, so the old primary
 * can get no acknowledgement; an old primary that answers is made read-only and its client
 * connections ended, with semi-sync left on (turning it off would tell waiting clients "committed"
 * for transactions no replica holds); the candidate is chosen by what it received, must apply all
 * of it in time, and the promotion is recorded before it happens (one whose data is to be compared
 * first is promoted read-only, the record's intent left open until it takes writes); then the other
 * candidates follow it. Calls to different members that do not depend on each other run at once;
 * each phase ends for every member before the next begins. What it does to the servers is {@link
 * Actions}.
 */
final class Failover {

  private static final Logger LOG = LoggerFactory.getLogger(Failover.class);

  /** What a failover does to the servers. */
  interface Actions {

    /**
     * Starts the member's applier, then stops its receiver (in that order: see MariaDB); a member
     * with no source has nothing to stop.
     */
    void stopReceiving(String member) throws InstanceException;

    /** Observes a member now; an unreachable member is reported as such, never thrown. */
    InstanceState observe(String member);

    /**
     * Observes the old primary, which did not answer for the whole detection window, with a short
     * timeout: a live server answers in milliseconds, so a silent one is waited for no longer than
     * that. Runs while the receivers stop; what it finds is acted on once they have.
     */
    default InstanceState probe(String member) {
      return observe(member);
    }

    /** Makes a member read-only and ends its client connections. */
    void fence(String member) throws InstanceException;

    /** A connection to the chosen candidate, kept from its catch-up to its promotion. */
    Promotion candidate(String member) throws InstanceException;

    /** Points a member at the new primary. */
    void repoint(String member, String primary) throws InstanceException;
  }

  /** The chosen candidate, from catching up to taking writes. */
  interface Promotion extends AutoCloseable {

    /** Whether it applied everything up to {@code point} within the catch-up time. */
    boolean applied(String point) throws InstanceException;

    /**
     * Makes it the primary (semi-sync on when it has replicas): open for writes, or read-only until
     * its data is compared when {@code writable} is false.
     */
    void promote(boolean writable) throws InstanceException;

    @Override
    void close();
  }

  /** Stores a record before the failover acts on it. */
  @FunctionalInterface
  interface Recorder {
    void save(TopologyRecord record) throws InstanceException;
  }

  private final GtidArithmetic gtids;
  private final Actions actions;
  private final FailoverBoundaries boundaries;
  private final Clock clock;
  private final int catchUpSeconds;

  Failover(
      GtidArithmetic gtids,
      Actions actions,
      FailoverBoundaries boundaries,
      Clock clock,
      int catchUpSeconds) {
    this.gtids = gtids;
    this.actions = actions;
    this.boundaries = boundaries;
    this.clock = clock;
    this.catchUpSeconds = catchUpSeconds;
  }

  /**
   * Replaces {@code f.oldPrimary()} among {@code members}, storing the intent through {@code rec}.
   */
  Outcome run(Step.Failover f, TopologyRecord rec, List<String> members, Recorder recorder)
      throws InstanceException {
    boundaries.reached(FailoverBoundaries.STARTED);
    LOG.info(
        "failover from {}: stopping every other member's receiver, asking {} once more",
        f.oldPrimary(),
        f.oldPrimary());
    // The last question to the old primary runs while the receivers stop rather than after: it is
    // a second of a silent server's timeout, and its answer is acted on only once they stopped.
    CompletableFuture<InstanceState> oldAnswers =
        Concurrently.alongside(() -> actions.probe(f.oldPrimary()));
    Optional<Outcome> stop = stopReceivers(f, rec, members);
    if (stop.isEmpty()) {
      stop = fenceOldPrimary(f, rec, oldAnswers.join());
    }
    if (stop.isPresent()) {
      return stop.get();
    }
    boundaries.reached(FailoverBoundaries.OLD_PRIMARY_FENCED);
    Choice choice = chooseCandidate(f, rec);
    if (choice.stop() != null) {
      return choice.stop();
    }
    String name = choice.chosen().name();
    PromotionIntent intent = new PromotionIntent(name, f.oldPrimary(), choice.chosen().held(gtids));
    boolean writable = !f.readOnlyIfChosen().contains(name);
    stop = catchUpAndPromote(rec, intent, writable, recorder);
    if (stop.isPresent()) {
      return stop.get();
    }
    boundaries.reached(FailoverBoundaries.PROMOTED);
    // 5. The other candidates follow it now rather than a round later: its semi-sync commits wait
    // for one of them to acknowledge, and a read-only one is compared with them before writes. One
    // that cannot be repointed is attached by a later round.
    List<String> following =
        repoint(name, Candidates.followers(choice.chosen(), choice.candidates(), gtids));
    boundaries.reached(FailoverBoundaries.REPLICAS_REPOINTED);
    return Outcome.warning(
        writable
            ? rec.failedOver(name, f.oldPrimary(), intent.point(), clock.instant())
            : rec.failedOverReadOnly(intent, clock.instant()),
        "FailedOver",
        "primary "
            + f.oldPrimary()
            + " was unreachable; promoted "
            + name
            + " at GTID "
            + intent.point()
            + followMessage(following)
            + (writable ? "" : StepText.FENCED_UNTIL_COMPARED));
  }

  /**
   * 1. No member receives from the old primary any more (errant ones could acknowledge too): it can
   * get no acknowledgement, so none of its clients is told a commit succeeded from here on.
   */
  private Optional<Outcome> stopReceivers(
      Step.Failover f, TopologyRecord rec, List<String> members) {
    List<String> receivers = members.stream().filter(n -> !n.equals(f.oldPrimary())).toList();
    var notStopped =
        Concurrently.firstFailure(
            Concurrently.each(
                receivers,
                name -> {
                  actions.stopReceiving(name);
                  return name;
                }));
    if (notStopped != null) {
      LOG.warn("failover: {}", notStopped.failure().getMessage());
      return Optional.of(
          fencingFailed(
              rec, "could not stop " + notStopped.item() + " receiving from " + f.oldPrimary()));
    }
    boundaries.reached(FailoverBoundaries.RECEIVING_STOPPED);
    return Optional.empty();
  }

  /**
   * 2. An old primary that answers is fenced; if it was still taking writes, the primary is alive
   * after all: re-plan (a switchover, or it simply stays the primary).
   */
  private Optional<Outcome> fenceOldPrimary(
      Step.Failover f, TopologyRecord rec, InstanceState old) {
    LOG.info(
        "failover from {}: receivers stopped; {} {}",
        f.oldPrimary(),
        f.oldPrimary(),
        old.reachable() ? "answered" : "did not answer");
    if (!old.reachable()) {
      return Optional.empty();
    }
    try {
      actions.fence(f.oldPrimary());
    } catch (InstanceException e) {
      LOG.warn("failover: {}", e.getMessage());
      return Optional.of(
          fencingFailed(rec, f.oldPrimary() + " answers but could not be made read-only"));
    }
    if (old.writable()) {
      return Optional.of(
          Outcome.warning(
              rec,
              "FailoverReplanned",
              f.oldPrimary()
                  + " answered and took writes: made read-only and its clients disconnected;"
                  + " the next round re-plans with it reachable"));
    }
    return Optional.empty();
  }

  /** The chosen candidate and every candidate observed, or why no one is promoted. */
  private record Choice(InstanceState chosen, List<InstanceState> candidates, Outcome stop) {}

  /**
   * 3. The candidate holding the most of what was received (acknowledged commits may be only in a
   * relay log), observed after every receiver stopped; of those holding the same, one whose data is
   * known good since its server started.
   */
  private Choice chooseCandidate(Step.Failover f, TopologyRecord rec) {
    List<InstanceState> candidates = new ArrayList<>();
    for (var r : Concurrently.each(f.candidates(), actions::observe)) {
      if (!r.value().reachable()) {
        return new Choice(
            null,
            candidates,
            Outcome.warning(
                rec,
                "FailoverAborted",
                "candidate "
                    + r.item()
                    + " became unreachable during the failover; not promoting"));
      }
      candidates.add(r.value());
    }
    Candidates.Choice choice =
        Candidates.chooseByReceived(
            candidates,
            candidates,
            gtids,
            i ->
                ContentChecking.sameStart(
                    rec.content().verifiedStarts().get(i.name()), i.startedAt()));
    Optional<InstanceState> chosen = choice.chosen();
    if (chosen.isEmpty()) {
      return new Choice(
          null, candidates, Outcome.warning(rec, "FailoverBlocked", choice.message()));
    }
    boundaries.reached(FailoverBoundaries.CANDIDATE_CHOSEN);
    return new Choice(chosen.get(), candidates, null);
  }

  /**
   * 4. The candidate applies all it received, the promotion is recorded before it happens (a
   * restarted operator completes or re-plans it), then it takes writes, or is promoted read-only
   * when its data is to be compared first.
   */
  private Optional<Outcome> catchUpAndPromote(
      TopologyRecord rec, PromotionIntent intent, boolean writable, Recorder recorder)
      throws InstanceException {
    String name = intent.candidate();
    String point = intent.point();
    LOG.info(
        "failover from {}: {} chosen; waiting for it to apply up to {}",
        intent.from(),
        name,
        point);
    try (Promotion candidate = actions.candidate(name)) {
      if (!candidate.applied(point)) {
        return Optional.of(
            Outcome.warning(
                rec,
                "FailoverAborted",
                name
                    + " did not apply the transactions it received (up to "
                    + point
                    + ") within "
                    + catchUpSeconds
                    + "s; not promoting it, since that would lose them. Check its replication"
                    + " applier"));
      }
      boundaries.reached(FailoverBoundaries.CANDIDATE_CAUGHT_UP);
      recorder.save(rec.withIntent(intent));
      boundaries.reached(FailoverBoundaries.INTENT_RECORDED);
      candidate.promote(writable);
      if (!writable) {
        LOG.info(
            "failover from {}: {} promoted read-only; it takes writes once compared",
            intent.from(),
            name);
      }
    }
    return Optional.empty();
  }

  /** Points {@code followers} at {@code primary}, all at once; returns those that follow it. */
  private List<String> repoint(String primary, List<String> followers) {
    List<String> done = new ArrayList<>();
    for (var r :
        Concurrently.each(
            followers,
            n -> {
              actions.repoint(n, primary);
              return n;
            })) {
      if (r.failed()) {
        LOG.info(
            "failover: {} is attached in a later round: {}", r.item(), r.failure().getMessage());
      } else {
        done.add(r.item());
      }
    }
    return done;
  }

  /** "; db-2 follows it" or "; db-2, db-3 follow it", nothing when none was repointed. */
  private static String followMessage(List<String> following) {
    return switch (following.size()) {
      case 0 -> "";
      case 1 -> "; " + following.get(0) + " follows it";
      default -> "; " + String.join(", ", following) + " follow it";
    };
  }

  private static Outcome fencingFailed(TopologyRecord rec, String what) {
    return Outcome.warning(rec, "FencingFailed", what + "; not promoting anyone");
  }
}
