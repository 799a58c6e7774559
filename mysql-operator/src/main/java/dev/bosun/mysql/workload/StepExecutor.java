package dev.bosun.mysql.workload;

import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.topology.Candidates;
import dev.bosun.mysql.topology.InstanceState;
import dev.bosun.mysql.topology.Step;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Runs one planned step against the servers and says what changed. */
public final class StepExecutor {

  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Observer observer;
  private final Duration timeout;
  private final Clock clock;
  private final int catchUpSeconds;

  /**
   * An executor for one flavour; {@code catchUpSeconds} bounds how long a candidate may take to
   * apply what it received before it is compared.
   */
  public StepExecutor(
      SqlDialect dialect,
      Credentials credentials,
      Duration timeout,
      Clock clock,
      int catchUpSeconds) {
    this.dialect = dialect;
    this.credentials = credentials;
    this.observer = new Observer(dialect, credentials, timeout);
    this.timeout = timeout;
    this.clock = clock;
    this.catchUpSeconds = catchUpSeconds;
  }

  /** The context a step runs in. */
  public record Context(
      Map<String, Address> addresses,
      TopologyRecord record,
      boolean withReplicas,
      long semiSyncTimeoutMillis,
      Restorer restorer) {}

  /** Executes one step. Steps that only wait or report change nothing. */
  public Outcome execute(Step step, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    if (step instanceof Step.Adopt a) {
      InstanceState s = observeOne(ctx, a.instance());
      return Outcome.normal(
          rec.promoted(a.instance(), rec.previousPrimary(), s.executed()),
          "PrimaryAdopted",
          a.instance() + " already takes writes and is recorded as the primary");
    }
    if (step instanceof Step.Fence f) {
      client(ctx, f.instance()).execute("fence", dialect.fence());
      return Outcome.warning(
          rec, "Fenced", f.instance() + " took writes without being the primary; set read-only");
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
    if (step instanceof Step.Switchover s) {
      return switchover(s, ctx);
    }
    if (step instanceof Step.Failover f) {
      return failover(f, ctx);
    }
    // Steady, Wait and Blocked change nothing.
    return Outcome.quiet(rec);
  }

  private Outcome restore(Step.Restore r, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    // No replica is attached yet, so no one could acknowledge the loaded rows: semi-sync off
    // until the replicas have joined (the planner turns it back on after them).
    client(ctx, r.primary())
        .execute(
            "restore-semi-sync-off", dialect.semiSyncSource(false, ctx.semiSyncTimeoutMillis()));
    String location;
    try {
      location = ctx.restorer().restore(ctx.addresses().get(r.primary()));
    } catch (InstanceException e) {
      throw e;
    } catch (Exception e) {
      throw new InstanceException("restore into " + r.primary() + " failed: " + e.getMessage(), e);
    }
    TopologyRecord next =
        new TopologyRecord(
            rec.primary(),
            rec.previousPrimary(),
            rec.promotionGtid(),
            rec.lastFailoverTime(),
            location);
    return Outcome.normal(next, "Restored", "loaded " + location + " into " + r.primary());
  }

  private Outcome switchover(Step.Switchover s, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    InstanceClient from = client(ctx, s.from());
    from.execute("switchover-fence", dialect.fence());
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
    to.execute(
        "switchover-promote", dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
    InstanceState promoted = observeOne(ctx, s.to());
    return Outcome.normal(
        rec.promoted(s.to(), s.from(), promoted.executed()),
        "SwitchedOver",
        "primary moved from " + s.from() + " to " + s.to() + " (" + s.why() + ")");
  }

  private Outcome failover(Step.Failover f, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    // Fence the old primary in case it answers again (a partition, not a crash).
    try {
      client(ctx, f.oldPrimary()).execute("failover-fence-old", dialect.fence());
    } catch (InstanceException unreachable) {
      // Expected when it is down: it boots read-only and is checked before it rejoins.
    }
    List<InstanceState> candidates = new ArrayList<>();
    for (String name : f.candidates()) {
      InstanceState before = observeOne(ctx, name);
      if (!before.reachable()) {
        throw new InstanceException("failover: candidate " + name + " became unreachable");
      }
      if (!before.received().isEmpty()) {
        waitApplied(client(ctx, name), before.received());
      }
      candidates.add(observeOne(ctx, name));
    }
    Candidates.Choice choice = Candidates.choose(candidates, candidates, dialect.gtids());
    Optional<InstanceState> chosen = choice.chosen();
    if (chosen.isEmpty()) {
      return Outcome.warning(rec, "FailoverBlocked", choice.message());
    }
    String name = chosen.get().name();
    client(ctx, name)
        .execute(
            "failover-promote", dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
    InstanceState promoted = observeOne(ctx, name);
    TopologyRecord next =
        new TopologyRecord(
            name, f.oldPrimary(), promoted.executed(), clock.instant(), rec.restoredFrom());
    return Outcome.warning(
        next,
        "FailedOver",
        "primary "
            + f.oldPrimary()
            + " was unreachable; promoted "
            + name
            + " at GTID "
            + promoted.executed());
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
    return new InstanceClient(ctx.addresses().get(name), credentials, timeout);
  }
}
