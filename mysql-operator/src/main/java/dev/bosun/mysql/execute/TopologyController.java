package dev.bosun.mysql.execute;

import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.ContentState;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.Plan;
import dev.bosun.mysql.plan.RebuildPolicy;
import dev.bosun.mysql.plan.RebuildState;
import dev.bosun.mysql.plan.RestoreState;
import dev.bosun.mysql.plan.Step;
import dev.bosun.mysql.plan.TopologyInput;
import dev.bosun.mysql.plan.TopologyPlanner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cluster's replication loop: observe every instance, plan one step, execute it. Remembers
 * since when the primary has been silent: from the end of the round it last answered in (a
 * restarted operator starts that clock at its first unanswered question, which only delays a
 * failover).
 */
public final class TopologyController {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyController.class);

  private final SqlDialect dialect;
  private final Observer observer;
  private final StepExecutor executor;
  private final TopologyPlanner planner;
  private final InterruptedLoads interruptedLoads;
  private final ContentChecks contentChecks;
  private final Clock clock;
  private final Duration timeout;
  private Instant primaryUnreachableSince;

  /** The shortest a silent primary is waited for: a live one answers well within it. */
  static final Duration SHORTEST_WAIT = Duration.ofMillis(500);

  private String unreachablePrimary;

  /** When {@link #answeredPrimary} last answered (the end of that round), or null. */
  private Instant lastAnswer;

  private String answeredPrimary;

  /** A controller for one cluster of one flavour. */
  public TopologyController(
      SqlDialect dialect,
      Credentials credentials,
      Duration timeout,
      Clock clock,
      int catchUpSeconds) {
    this(dialect, credentials, timeout, clock, catchUpSeconds, FailoverBoundaries.none());
  }

  /** A controller whose failovers report each boundary they pass (drills stop them there). */
  public TopologyController(
      SqlDialect dialect,
      Credentials credentials,
      Duration timeout,
      Clock clock,
      int catchUpSeconds,
      FailoverBoundaries boundaries) {
    this.dialect = dialect;
    this.timeout = timeout;
    this.observer = new Observer(dialect, credentials, timeout);
    this.executor =
        new StepExecutor(dialect, credentials, timeout, clock, catchUpSeconds, boundaries);
    this.planner = new TopologyPlanner(dialect.gtids());
    this.interruptedLoads = new InterruptedLoads(dialect, credentials, timeout);
    this.contentChecks = new ContentChecks(dialect, credentials, timeout, clock);
    this.clock = clock;
  }

  /** What the spec asks of the topology. */
  public record Desired(
      int instances,
      boolean failoverEnabled,
      Duration failoverAfter,
      String switchoverTarget,
      long semiSyncTimeoutMillis,
      boolean rebuildAutomatic,
      String rebuildRequested) {

    /** Without rebuilds: Manual, nothing requested. */
    public Desired(
        int instances,
        boolean failoverEnabled,
        Duration failoverAfter,
        String switchoverTarget,
        long semiSyncTimeoutMillis) {
      this(
          instances,
          failoverEnabled,
          failoverAfter,
          switchoverTarget,
          semiSyncTimeoutMillis,
          false,
          null);
    }
  }

  /**
   * One round: what was seen, what was planned, what happened (or the error), and what a running
   * rebuild is doing (or null).
   */
  public record Tick(
      List<InstanceState> observed,
      Plan plan,
      Outcome outcome,
      String error,
      String rebuildProgress) {

    /** The record after this round. */
    public TopologyRecord record() {
      return outcome.record();
    }

    /**
     * The member this round's step made the writable primary (a promotion, failover or switchover
     * that completed), or null: what was observed before the step still shows it read-only. A
     * member promoted read-only (its intent left open) is not: clients would read what it may lack.
     */
    public String promoted() {
      String now = record().primary();
      if (error != null || now == null) {
        return null;
      }
      Step step = plan.step();
      boolean done =
          (step instanceof Step.Promote p && p.writable() && p.instance().equals(now))
              || (step instanceof Step.Failover f
                  && !now.equals(f.oldPrimary())
                  && record().intent() == null)
              || (step instanceof Step.Switchover w && w.to().equals(now));
      return done ? now : null;
    }

    /** Whether the round found nothing to do. */
    public boolean steady() {
      return plan.step() instanceof Step.Steady && error == null;
    }
  }

  /** Why each member that did not answer the last observation failed. */
  public Map<String, String> unreachableReasons() {
    return observer.unreachableReasons();
  }

  /** Health-poll queries sent so far. */
  public long observationQueries() {
    return observer.queries();
  }

  /** Observes, plans and executes one step, with no rebuild support. */
  public Tick tick(
      Desired desired,
      TopologyRecord record,
      Map<String, Address> addresses,
      Set<String> knownErrant,
      Restorer restorer,
      RecordSink sink) {
    return tick(
        desired,
        record,
        addresses,
        knownErrant,
        restorer,
        Rebuilder.none("this operator was started without rebuild support"),
        sink);
  }

  /** Observes, plans and executes one step. */
  public Tick tick(
      Desired desired,
      TopologyRecord record,
      Map<String, Address> addresses,
      Set<String> knownErrant,
      Restorer restorer,
      Rebuilder rebuilder,
      RecordSink sink) {
    Instant asked = clock.instant();
    List<InstanceState> observed =
        observer.observe(
            addresses,
            record.primary(),
            primaryWait(record.primary(), desired.failoverEnabled(), desired.failoverAfter()));
    Duration unreachableFor = unreachableFor(record.primary(), observed, asked);
    TopologyInput input =
        new TopologyInput(
            desired.instances(),
            observed,
            addresses,
            record.primary(),
            returningOldPrimary(record),
            record.promotionGtid(),
            knownErrant,
            desired.failoverEnabled(),
            unreachableFor,
            desired.failoverAfter(),
            desired.switchoverTarget(),
            restoreState(
                record,
                restorer,
                () -> interruptedLoads.judge(record.primary(), observed, addresses)),
            record.intent(),
            rebuildPolicy(desired, record, rebuilder),
            contentState(record));
    Plan plan = planner.plan(input);
    StepExecutor.Context ctx =
        new StepExecutor.Context(
            addresses,
            record,
            desired.instances() > 1,
            desired.semiSyncTimeoutMillis(),
            restorer,
            sink,
            rebuilder,
            contentChecks);
    String doing = rebuildDoing(record, rebuilder);
    try {
      Outcome outcome = executor.execute(plan.step(), ctx);
      return new Tick(observed, plan, outcome, null, doing);
    } catch (InstanceException e) {
      // What the step stored before it failed (an intent, a started restore) stays: writing
      // back the record from before the step would forget it.
      // The message is the operator's own (instance, step, SQL error code), bounded for status.
      return new Tick(
          observed,
          plan,
          Outcome.quiet(ctx.saved().get()),
          HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH),
          doing);
    }
  }

  /** What the record and this process's comparisons know of the members' data. */
  private ContentState contentState(TopologyRecord record) {
    ContentRecord c = record.content();
    return new ContentState(
        dialect.contentCheckUnsupported() == null,
        c.verifiedStarts(),
        c.differing(),
        contentChecks.running(),
        contentChecks.resting(),
        contentChecks.finished());
  }

  /** The spec's rebuild wishes with what this process and the record know of rebuilds. */
  private RebuildPolicy rebuildPolicy(Desired desired, TopologyRecord record, Rebuilder rebuilder) {
    RebuildRecord last = record.rebuild();
    boolean finished = last != null && last.finishedAt() != null;
    return new RebuildPolicy(
        desired.rebuildAutomatic(),
        desired.rebuildRequested(),
        rebuilder.canKeepErrant(),
        rebuilder.unsupported(),
        rebuildState(record, rebuilder),
        finished ? last.member() : null,
        finished ? Duration.between(last.finishedAt(), clock.instant()) : null,
        rebuilder.unrecoverable());
  }

  /** Where the recorded rebuild stands, from the record and this process's background copy. */
  static RebuildState rebuildState(TopologyRecord record, Rebuilder rebuilder) {
    RebuildRecord r = record.rebuild();
    if (r == null || RebuildRecord.REBUILT.equals(r.phase())) {
      return RebuildState.none();
    }
    if (RebuildRecord.FAILED.equals(r.phase())) {
      return new RebuildState(RebuildState.Phase.ABANDONED, r.member(), r.message());
    }
    if (RebuildRecord.REPLACING_VOLUME.equals(r.phase())) {
      return new RebuildState(RebuildState.Phase.REPLACING_VOLUME, r.member(), null);
    }
    Rebuilder.Progress p = rebuilder.progress();
    if (p == null) {
      return new RebuildState(RebuildState.Phase.INTERRUPTED, r.member(), null);
    }
    if (p.running()) {
      return new RebuildState(RebuildState.Phase.RUNNING, r.member(), null);
    }
    return p.failure() != null
        ? new RebuildState(RebuildState.Phase.FAILED, r.member(), p.failure())
        : new RebuildState(RebuildState.Phase.DONE, r.member(), null);
  }

  private static String rebuildDoing(TopologyRecord record, Rebuilder rebuilder) {
    if (record.rebuild() == null || !RebuildRecord.COPYING.equals(record.rebuild().phase())) {
      return null;
    }
    Rebuilder.Progress p = rebuilder.progress();
    return p != null && p.running() ? p.doing() : null;
  }

  /**
   * Where fromBackup stands, from the record and this process's background load; a load recorded as
   * started that this process does not know of was interrupted.
   */
  static RestoreState restoreState(TopologyRecord record, Restorer restorer) {
    return restoreState(
        record, restorer, () -> new RestoreState(RestoreState.Phase.INTERRUPTED, null));
  }

  /**
   * Where fromBackup stands; {@code afterRestart} judges a load recorded as started that this
   * process does not know of (the operator restarted at some point of it).
   */
  static RestoreState restoreState(
      TopologyRecord record, Restorer restorer, Supplier<RestoreState> afterRestart) {
    boolean pending = TopologyRecord.RESTORE_PENDING.equals(record.restoredFrom());
    boolean loading = TopologyRecord.RESTORE_LOADING.equals(record.restoredFrom());
    if (!pending && !loading) {
      return RestoreState.none();
    }
    Restorer.Progress p = restorer == null ? null : restorer.progress();
    if (p == null) {
      return pending ? new RestoreState(RestoreState.Phase.PENDING, null) : afterRestart.get();
    }
    if (p.running()) {
      return new RestoreState(RestoreState.Phase.RUNNING, null);
    }
    return p.failure() != null
        ? new RestoreState(RestoreState.Phase.FAILED, p.failure())
        : new RestoreState(RestoreState.Phase.DONE, p.location());
  }

  /**
   * The old primary whose writes beyond the promotion point are errant, or null: none once it was
   * rebuilt after that failover, since its data is then a copy of a replica of the current primary
   * (judged against the promotion point, that copy looks errant and would be rebuilt again and
   * again).
   */
  static String returningOldPrimary(TopologyRecord r) {
    RebuildRecord b = r.rebuild();
    boolean rebuiltSince =
        r.previousPrimary() != null
            && b != null
            && RebuildRecord.REBUILT.equals(b.phase())
            && r.previousPrimary().equals(b.member())
            && b.finishedAt() != null
            && (r.lastFailoverTime() == null || b.finishedAt().isAfter(r.lastFailoverTime()));
    return rebuiltSince ? null : r.previousPrimary();
  }

  /**
   * When the next round should start: after {@code poll}, unless the primary has not answered for
   * part of the detection window {@code failoverAfter}; then so that the round, which waits up to
   * the SQL timeout for a silent primary, ends as the window does (at least 100 ms from now). A
   * window already over keeps {@code poll}: the round that saw it over acted on it.
   */
  public Duration nextRoundAfter(Duration poll, Duration failoverAfter, boolean failoverEnabled) {
    return failoverEnabled
        ? nextRoundAfter(primaryUnreachableSince, clock.instant(), poll, failoverAfter, timeout)
        : poll;
  }

  /**
   * How long this round waits for the primary: the SQL timeout, or for a primary already silent,
   * what is left of the detection window (at least {@link #SHORTEST_WAIT}), so the round that can
   * decide a failover ends as the window does.
   */
  private Duration primaryWait(String primary, boolean failoverEnabled, Duration failoverAfter) {
    if (!failoverEnabled || primary == null || !primary.equals(unreachablePrimary)) {
      return timeout;
    }
    return primaryWait(primaryUnreachableSince, clock.instant(), failoverAfter, timeout);
  }

  /** What is left of the window begun at {@code since}, at least the shortest wait. */
  static Duration primaryWait(
      Instant since, Instant now, Duration failoverAfter, Duration timeout) {
    if (since == null) {
      return timeout;
    }
    Duration left = failoverAfter.minus(Duration.between(since, now));
    return left.compareTo(SHORTEST_WAIT) < 0
        ? SHORTEST_WAIT
        : left.compareTo(timeout) > 0 ? timeout : left;
  }

  /**
   * {@link #nextRoundAfter(Duration, Duration, boolean)} for a primary silent since {@code since}.
   */
  static Duration nextRoundAfter(
      Instant since, Instant now, Duration poll, Duration failoverAfter, Duration timeout) {
    if (since == null) {
      return poll;
    }
    Duration elapsed = Duration.between(since, now);
    if (elapsed.compareTo(failoverAfter) >= 0) {
      return poll;
    }
    Duration untilWindowEnds = failoverAfter.minus(elapsed).minus(timeout);
    Duration soonest = Duration.ofMillis(100);
    return untilWindowEnds.compareTo(soonest) < 0
        ? soonest
        : untilWindowEnds.compareTo(poll) > 0 ? poll : untilWindowEnds;
  }

  private Duration unreachableFor(String primary, List<InstanceState> observed, Instant asked) {
    boolean reachable =
        primary == null
            || observed.stream().anyMatch(i -> i.name().equals(primary) && i.reachable());
    if (reachable) {
      primaryUnreachableSince = null;
      unreachablePrimary = null;
      lastAnswer = primary == null ? null : clock.instant();
      answeredPrimary = primary;
      return Duration.ZERO;
    }
    if (primaryUnreachableSince == null || !primary.equals(unreachablePrimary)) {
      primaryUnreachableSince =
          silentSince(primary.equals(answeredPrimary) ? lastAnswer : null, asked, timeout);
      unreachablePrimary = primary;
      LOG.info(
          "the primary {} did not answer (asked at {}; silent since {})",
          primary,
          asked,
          primaryUnreachableSince);
    }
    return Duration.between(primaryUnreachableSince, clock.instant());
  }

  /**
   * Since when a primary that did not answer the round {@code asked} counts as silent: since the
   * end of the round it last answered in, as a lease counts from its last renewal, when that round
   * was the one before (at most {@code horizon} earlier); otherwise, after a pause of the rounds or
   * a restart of the operator, since this round asked: older evidence would shorten the window by
   * however long nobody looked.
   */
  static Instant silentSince(Instant lastAnswer, Instant asked, Duration horizon) {
    return lastAnswer != null && !lastAnswer.isBefore(asked.minus(horizon)) ? lastAnswer : asked;
  }

  /** The dialect this controller speaks. */
  public SqlDialect dialect() {
    return dialect;
  }
}
