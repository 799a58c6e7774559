package dev.bosun.mysql.workload;

import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.topology.Candidates;
import dev.bosun.mysql.topology.InstanceState;
import dev.bosun.mysql.topology.PromotionIntent;
import dev.bosun.mysql.topology.Step;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one planned step against the servers and says what changed.
 *
 * <p>A failover fences before it promotes (as MOCO does): every candidate stops receiving, so the
 * old primary can get no acknowledgement; an old primary that answers is made read-only and its
 * client connections ended, with semi-sync left on (turning it off would tell waiting clients
 * "committed" for transactions no replica holds). The candidate is chosen by what it received, must
 * apply all of it in time, and the promotion is recorded in status before it happens.
 */
public final class StepExecutor {

  private static final Duration FENCE_KILL_INTERVAL = Duration.ofMillis(100);
  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Observer observer;
  private final Duration timeout;
  private final Clock clock;
  private final int catchUpSeconds;
  private final FailoverBoundaries boundaries;

  /**
   * An executor for one flavour; {@code catchUpSeconds} bounds how long a candidate may take to
   * apply what it received before it is promoted.
   */
  public StepExecutor(
      SqlDialect dialect,
      Credentials credentials,
      Duration timeout,
      Clock clock,
      int catchUpSeconds,
      FailoverBoundaries boundaries) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.observer = new Observer(dialect, credentials, timeout);
    this.timeout = timeout;
    this.clock = clock;
    this.catchUpSeconds = catchUpSeconds;
    this.boundaries = boundaries;
  }

  /**
   * The context a step runs in. {@code saved} holds the last record the sink stored during the
   * step, so an error path reports that one, never the record from before the step.
   */
  public record Context(
      Map<String, Address> addresses,
      TopologyRecord record,
      boolean withReplicas,
      long semiSyncTimeoutMillis,
      Restorer restorer,
      RecordSink sink,
      AtomicReference<TopologyRecord> saved) {

    /** A context whose saved record starts as {@code record}. */
    public Context(
        Map<String, Address> addresses,
        TopologyRecord record,
        boolean withReplicas,
        long semiSyncTimeoutMillis,
        Restorer restorer,
        RecordSink sink) {
      this(
          addresses,
          record,
          withReplicas,
          semiSyncTimeoutMillis,
          restorer,
          sink,
          new AtomicReference<>(record));
    }

    void save(TopologyRecord next) throws InstanceException {
      sink.save(next);
      saved.set(next);
    }
  }

  /** Executes one step. Steps that only wait or report change nothing. */
  public Outcome execute(Step step, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    if (step instanceof Step.Adopt a) {
      return adopt(a, ctx);
    }
    if (step instanceof Step.Fence f) {
      fenceAndDisconnect(client(ctx, f.instance()));
      return Outcome.warning(
          rec,
          "Fenced",
          f.instance()
              + " took writes without being the primary; set read-only and its clients"
              + " disconnected");
    }
    if (step instanceof Step.Attach a) {
      Address source = ctx.addresses().get(a.primary());
      client(ctx, a.instance())
          .execute(
              "attach",
              dialect.replicateFrom(
                  source.host(),
                  source.port(),
                  credentials.replicationUser(),
                  credentials.replicationPassword()));
      return Outcome.quiet(rec);
    }
    if (step instanceof Step.SemiSync s) {
      client(ctx, s.primary())
          .execute("semi-sync", dialect.semiSyncSource(s.on(), ctx.semiSyncTimeoutMillis()));
      return Outcome.quiet(rec);
    }
    if (step instanceof Step.Promote p) {
      client(ctx, p.instance())
          .execute("promote", dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
      InstanceState s = observeOne(ctx, p.instance());
      return Outcome.normal(
          rec.promoted(p.instance(), rec.primary(), s.executed()),
          "Promoted",
          p.instance() + " is the primary (" + p.why() + ") at GTID " + s.executed());
    }
    if (step instanceof Step.Restore r) {
      return restore(r, ctx);
    }
    if (step instanceof Step.RestoreDone d) {
      return restoreDone(d, ctx);
    }
    if (step instanceof Step.Switchover s) {
      return switchover(s, ctx);
    }
    if (step instanceof Step.Failover f) {
      return failover(f, ctx);
    }
    // Steady, Wait and Blocked change nothing.
    return Outcome.quiet(rec);
  }

  private Outcome adopt(Step.Adopt a, Context ctx) {
    TopologyRecord rec = ctx.record();
    InstanceState s = observeOne(ctx, a.instance());
    PromotionIntent intent = rec.intent();
    if (intent != null && intent.candidate().equals(a.instance())) {
      // The operator died after promoting and before recording it: finish the record with the
      // promotion point chosen then, not the position now (which has new writes in it).
      return Outcome.warning(
          rec.failedOver(a.instance(), intent.from(), intent.point(), clock.instant()),
          "FailedOver",
          "completed the interrupted promotion of "
              + a.instance()
              + " (replacing "
              + intent.from()
              + ") at GTID "
              + intent.point());
    }
    return Outcome.normal(
        rec.promoted(a.instance(), rec.previousPrimary(), s.executed()),
        "PrimaryAdopted",
        a.instance() + " already takes writes and is recorded as the primary");
  }

  private Outcome restore(Step.Restore r, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    // No replica is attached yet, so no one could acknowledge the loaded rows: semi-sync off
    // until the replicas have joined (the planner turns it back on after them).
    client(ctx, r.primary())
        .execute(
            "restore-semi-sync-off", dialect.semiSyncSource(false, ctx.semiSyncTimeoutMillis()));
    if (!ctx.restorer().start(ctx.addresses().get(r.primary()))) {
      throw new InstanceException("no free restore worker; the load starts in a later round");
    }
    // Recorded at once: a load whose operator dies is never started again over what it wrote.
    ctx.save(rec.withRestoredFrom(TopologyRecord.RESTORE_LOADING));
    return Outcome.normal(
        rec.withRestoredFrom(TopologyRecord.RESTORE_LOADING),
        "Restoring",
        "loading fromBackup into " + r.primary() + " in the background");
  }

  private Outcome restoreDone(Step.RestoreDone d, Context ctx) {
    ctx.restorer().forget();
    return Outcome.normal(
        ctx.record().withRestoredFrom(d.location()),
        "Restored",
        "loaded " + d.location() + " into " + d.primary());
  }

  private Outcome switchover(Step.Switchover s, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    InstanceClient from = client(ctx, s.from());
    fenceAndDisconnect(from);
    InstanceState fenced = observeOne(ctx, s.from());
    if (!fenced.reachable()) {
      throw new InstanceException("switchover: " + s.from() + " became unreachable after fencing");
    }
    InstanceClient to = client(ctx, s.to());
    if (!waitApplied(to, fenced.executed())) {
      // Give the writes back to the old primary rather than leave the cluster without one.
      from.execute(
          "switchover-undo", dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
      return Outcome.warning(
          rec,
          "SwitchoverFailed",
          s.to()
              + " did not catch up with "
              + s.from()
              + " in "
              + catchUpSeconds
              + "s; kept "
              + s.from());
    }
    ctx.save(rec.withIntent(new PromotionIntent(s.to(), s.from(), fenced.executed())));
    boundaries.reached(FailoverBoundaries.INTENT_RECORDED);
    to.execute(
        "switchover-promote", dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
    boundaries.reached(FailoverBoundaries.PROMOTED);
    return Outcome.normal(
        rec.promoted(s.to(), s.from(), fenced.executed()),
        "SwitchedOver",
        "primary moved from " + s.from() + " to " + s.to() + " (" + s.why() + ")");
  }

  private Outcome failover(Step.Failover f, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    // 1. No member receives from the old primary any more (errant ones could acknowledge too): it
    // can get no acknowledgement, so none of its clients is told a commit succeeded from here on.
    for (String name : ctx.addresses().keySet()) {
      if (name.equals(f.oldPrimary())) {
        continue;
      }
      try {
        // The applier first, while the receiver still runs: MariaDB purges the relay log when a
        // thread starts with both stopped, and with it acknowledged commits not yet applied.
        List<String> statements = new ArrayList<>(dialect.startApplier());
        statements.addAll(dialect.stopReceiving());
        client(ctx, name).execute("failover-stop-receiving", statements);
      } catch (InstanceException e) {
        return fencingFailed(rec, "could not stop " + name + " receiving from " + f.oldPrimary());
      }
    }
    boundaries.reached(FailoverBoundaries.RECEIVING_STOPPED);
    // 2. An old primary that answers is fenced; if it was still taking writes, the primary is
    // alive after all: re-plan (a switchover, or it simply stays the primary).
    InstanceState old = observeOne(ctx, f.oldPrimary());
    if (old.reachable()) {
      try {
        fenceAndDisconnect(client(ctx, f.oldPrimary()));
      } catch (InstanceException e) {
        return fencingFailed(rec, f.oldPrimary() + " answers but could not be made read-only");
      }
      if (old.writable()) {
        return Outcome.warning(
            rec,
            "FailoverReplanned",
            f.oldPrimary()
                + " answered and took writes: made read-only and its clients disconnected;"
                + " the next round re-plans with it reachable");
      }
    }
    boundaries.reached(FailoverBoundaries.OLD_PRIMARY_FENCED);
    // 3. The candidate holding the most of what was received (acknowledged commits may be only in
    // a relay log), then it applies all of it.
    List<InstanceState> candidates = new ArrayList<>();
    for (String name : f.candidates()) {
      InstanceState observed = observeOne(ctx, name);
      if (!observed.reachable()) {
        return Outcome.warning(
            rec,
            "FailoverAborted",
            "candidate " + name + " became unreachable during the failover; not promoting");
      }
      candidates.add(observed);
    }
    Candidates.Choice choice = Candidates.chooseByReceived(candidates, candidates, dialect.gtids());
    Optional<InstanceState> chosen = choice.chosen();
    if (chosen.isEmpty()) {
      return Outcome.warning(rec, "FailoverBlocked", choice.message());
    }
    String name = chosen.get().name();
    String point = chosen.get().held(dialect.gtids());
    InstanceClient candidate = client(ctx, name);
    if (!waitApplied(candidate, point)) {
      return Outcome.warning(
          rec,
          "FailoverAborted",
          name
              + " did not apply the transactions it received (up to "
              + point
              + ") within "
              + catchUpSeconds
              + "s; not promoting it, since that would lose them. Check its replication applier");
    }
    boundaries.reached(FailoverBoundaries.CANDIDATE_CAUGHT_UP);
    // 4. Recorded before it happens: a restarted operator completes or re-plans it.
    ctx.save(rec.withIntent(new PromotionIntent(name, f.oldPrimary(), point)));
    boundaries.reached(FailoverBoundaries.INTENT_RECORDED);
    candidate.execute(
        "failover-promote", dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
    boundaries.reached(FailoverBoundaries.PROMOTED);
    return Outcome.warning(
        rec.failedOver(name, f.oldPrimary(), point, clock.instant()),
        "FailedOver",
        "primary " + f.oldPrimary() + " was unreachable; promoted " + name + " at GTID " + point);
  }

  private static Outcome fencingFailed(TopologyRecord rec, String what) {
    return Outcome.warning(rec, "FencingFailed", what + "; not promoting anyone");
  }

  /**
   * Makes an instance read-only and ends its client connections, so a transaction waiting for an
   * acknowledgement is ended with its connection and its client is never told it committed.
   *
   * <p>Setting read-only waits for commits in progress, and a commit waiting for an acknowledgement
   * that cannot come (the replicas stopped receiving) waits for the semi-sync timeout: so the
   * read-only statement runs on its own thread while the client connections are ended until it
   * returns. Once it is pending, new commits wait behind it instead.
   */
  private void fenceAndDisconnect(InstanceClient c) throws InstanceException {
    CompletableFuture<Void> readOnly = new CompletableFuture<>();
    Thread fence =
        new Thread(
            () -> {
              try {
                c.execute("fence", dialect.fence(), fenceTimeout());
                readOnly.complete(null);
              } catch (InstanceException | RuntimeException e) {
                readOnly.completeExceptionally(e);
              }
            },
            "fence-" + c.address());
    fence.setDaemon(true);
    fence.start();
    long deadline = System.nanoTime() + fenceTimeout().toNanos();
    while (true) {
      disconnectClients(c);
      try {
        readOnly.get(FENCE_KILL_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        break;
      } catch (TimeoutException stillWaiting) {
        if (System.nanoTime() > deadline) {
          throw new InstanceException(c.address() + ": read-only did not take effect in time");
        }
      } catch (ExecutionException e) {
        throw e.getCause() instanceof InstanceException ie
            ? ie
            : new InstanceException(c.address() + ": fence failed", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InstanceException(c.address() + ": fence interrupted", e);
      }
    }
    // Clients that connected while read-only was pending are refused writes now; end them too.
    disconnectClients(c);
  }

  /** How long read-only may wait for commits in progress while their connections are ended. */
  private Duration fenceTimeout() {
    return timeout.multipliedBy(3);
  }

  private void disconnectClients(InstanceClient c) throws InstanceException {
    List<String> kills = new ArrayList<>();
    for (Map<String, String> row : c.query(dialect.clientConnectionsQuery(), timeout)) {
      kills.add(dialect.killConnection(Long.parseLong(row.values().iterator().next())));
    }
    // A connection may end by itself between the query and its KILL: that is no failure.
    c.executeEach("fence-disconnect", kills);
  }

  private boolean waitApplied(InstanceClient client, String position) throws InstanceException {
    if (dialect.gtids().isEmpty(position)) {
      return true;
    }
    var rows =
        client.query(
            dialect.waitForApplied(position, catchUpSeconds), timeout.plusSeconds(catchUpSeconds));
    String v = rows.isEmpty() ? null : rows.get(0).values().iterator().next();
    return v != null && dialect.waitSucceeded(Long.parseLong(v));
  }

  private InstanceState observeOne(Context ctx, String name) {
    return observer.observe(name, Observer.ordinal(name), ctx.addresses().get(name));
  }

  private InstanceClient client(Context ctx, String name) {
    return new InstanceClient(
        ctx.addresses().get(name), credentials, timeout, dialect.jdbcOptions());
  }
}
