package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.InstanceState;
import dev.bosun.mysql.plan.PromotionIntent;
import dev.bosun.mysql.plan.Step;
import dev.bosun.mysql.plan.StepText;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one planned step against the servers and says what changed.
 *
 * <p>A failover fences before it promotes (as MOCO does): {@link Failover} holds its order, this
 * class the statements each of its actions runs.
 */
public final class StepExecutor {

  /** The old primary's last chance to answer in a failover (a live server needs milliseconds). */
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

  private static final Duration FENCE_KILL_INTERVAL = Duration.ofMillis(100);
  private final SqlDialect dialect;
  private final Credentials credentials;
  private final Observer observer;

  /** Asks a primary silent for the whole detection window once more, briefly. */
  private final Observer prober;

  private final Duration timeout;
  private final Clock clock;
  private final int catchUpSeconds;
  private final FailoverBoundaries boundaries;
  private final ContentSteps content;

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
    this.prober =
        new Observer(
            dialect, credentials, PROBE_TIMEOUT.compareTo(timeout) < 0 ? PROBE_TIMEOUT : timeout);
    this.timeout = timeout;
    this.clock = clock;
    this.catchUpSeconds = catchUpSeconds;
    this.boundaries = boundaries;
    this.content = new ContentSteps(clock);
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
      AtomicReference<TopologyRecord> saved,
      Rebuilder rebuilder,
      ContentChecks checks) {

    /** A context whose saved record starts as {@code record}, without rebuilds. */
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
          Rebuilder.none("no rebuild support"));
    }

    /** A context whose saved record starts as {@code record}, without data comparisons. */
    public Context(
        Map<String, Address> addresses,
        TopologyRecord record,
        boolean withReplicas,
        long semiSyncTimeoutMillis,
        Restorer restorer,
        RecordSink sink,
        Rebuilder rebuilder) {
      this(
          addresses,
          record,
          withReplicas,
          semiSyncTimeoutMillis,
          restorer,
          sink,
          new AtomicReference<>(record),
          rebuilder,
          null);
    }

    /** A context whose saved record starts as {@code record}. */
    public Context(
        Map<String, Address> addresses,
        TopologyRecord record,
        boolean withReplicas,
        long semiSyncTimeoutMillis,
        Restorer restorer,
        RecordSink sink,
        Rebuilder rebuilder,
        ContentChecks checks) {
      this(
          addresses,
          record,
          withReplicas,
          semiSyncTimeoutMillis,
          restorer,
          sink,
          new AtomicReference<>(record),
          rebuilder,
          checks);
    }

    void save(TopologyRecord next) throws InstanceException {
      sink.save(next);
      saved.set(next);
    }
  }

  /** Executes one step. Steps that only wait or report change nothing. */
  public Outcome execute(Step step, Context ctx) throws InstanceException {
    if (step instanceof Step.Adopt a) {
      return adopt(a, ctx);
    }
    if (step instanceof Step.Fence f) {
      return fence(f, ctx);
    }
    if (step instanceof Step.Detach d) {
      return detach(d, ctx);
    }
    if (step instanceof Step.Attach a) {
      return attach(a, ctx);
    }
    if (step instanceof Step.SemiSync s) {
      return semiSync(s, ctx);
    }
    if (step instanceof Step.Promote p) {
      return promote(p, ctx);
    }
    if (step instanceof Step.Restore r) {
      return restore(r, ctx);
    }
    if (step instanceof Step.RestoreDone d) {
      return restoreDone(d, ctx);
    }
    if (step instanceof Step.RestoreSkipped k) {
      return restoreSkipped(k, ctx.record());
    }
    if (step instanceof Step.Switchover s) {
      return switchover(s, ctx);
    }
    if (step instanceof Step.Rebuild r) {
      return rebuild(r, ctx);
    }
    if (step instanceof Step.RebuildDone d) {
      return rebuildDone(d, ctx);
    }
    if (step instanceof Step.ReplaceVolume v) {
      return replaceVolume(v, ctx);
    }
    if (step instanceof Step.Failover f) {
      return failover(f, ctx);
    }
    if (step instanceof Step.RecordServerStarts r) {
      return content.recordStarts(r, ctx);
    }
    if (step instanceof Step.CheckContent c) {
      return content.check(c, ctx);
    }
    if (step instanceof Step.ContentChecked k) {
      return content.checked(k, ctx);
    }
    // Steady, Wait and Blocked change nothing.
    return Outcome.quiet(ctx.record());
  }

  private Outcome fence(Step.Fence f, Context ctx) throws InstanceException {
    fenceAndDisconnect(client(ctx, f.instance()));
    return Outcome.warning(
        ctx.record(),
        "Fenced",
        f.instance()
            + " took writes without being the primary; set read-only and its clients"
            + " disconnected");
  }

  private Outcome detach(Step.Detach d, Context ctx) throws InstanceException {
    client(ctx, d.instance()).execute("detach", dialect.stopReceiving());
    return Outcome.warning(ctx.record(), "ExcludedMemberDetached", StepText.sentence(d, ""));
  }

  private Outcome attach(Step.Attach a, Context ctx) throws InstanceException {
    Address source = ctx.addresses().get(a.primary());
    List<String> statements =
        dialect.replicateFrom(
            source.host(),
            source.port(),
            credentials.replicationUser(),
            credentials.replicationPassword());
    try {
      client(ctx, a.instance()).execute("attach", statements);
    } catch (InstanceException e) {
      if (!(e.getCause() instanceof java.sql.SQLException sql)
          || sql.getErrorCode() != UNREADABLE_SOURCE_SETTINGS) {
        throw e;
      }
      // A crash left the member's source settings or relay log unreadable (chaos seed 665775:
      // every attach failed with 1201, five times a second). The source it attaches to is the
      // live primary, which holds all the relay log did: forget them and attach once more.
      List<String> again = new ArrayList<>();
      again.add(dialect.forgetSource());
      again.addAll(statements);
      client(ctx, a.instance()).execute("attach after forgetting its source settings", again);
      return Outcome.normal(
          ctx.record(),
          "ReplicationSettingsReset",
          a.instance()
              + "'s replication settings could not be read after a crash (error "
              + UNREADABLE_SOURCE_SETTINGS
              + "); they were reset and it was attached to "
              + a.primary()
              + " again");
    }
    return Outcome.quiet(ctx.record());
  }

  /** MariaDB's "Could not initialize master info structure" (MySQL: the same code). */
  static final int UNREADABLE_SOURCE_SETTINGS = 1201;

  private Outcome semiSync(Step.SemiSync s, Context ctx) throws InstanceException {
    client(ctx, s.primary())
        .execute("semi-sync", dialect.semiSyncSource(s.on(), ctx.semiSyncTimeoutMillis()));
    return Outcome.quiet(ctx.record());
  }

  private Outcome promote(Step.Promote p, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    client(ctx, p.instance())
        .execute(
            "promote",
            p.writable()
                ? dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis())
                : dialect.promoteFenced(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
    InstanceState s = observeOne(ctx, p.instance());
    PromotionIntent intent = rec.intent();
    // A failover's read-only promotion completes now: its record keeps the member it replaced and
    // the point it was promoted at, not the position now.
    TopologyRecord promoted =
        intent != null && intent.candidate().equals(p.instance())
            ? rec.promoted(p.instance(), intent.from(), intent.point())
            : rec.promoted(p.instance(), rec.primary(), s.executed());
    return Outcome.normal(
        promoted,
        "Promoted",
        p.instance()
            + " "
            + StepText.promotion(p.why())
            + (s.executed().isEmpty() ? "" : " (at GTID " + s.executed() + ")")
            + (p.writable() ? "" : StepText.FENCED_UNTIL_COMPARED));
  }

  private Outcome adopt(Step.Adopt a, Context ctx) {
    TopologyRecord rec = ctx.record();
    InstanceState s = observeOne(ctx, a.instance());
    PromotionIntent intent = rec.intent();
    if (intent != null
        && intent.candidate().equals(a.instance())
        && a.instance().equals(rec.primary())) {
      // A failover promoted it read-only and it was opened, but the operator died before it
      // recorded that: the failover itself was recorded (and told) then.
      return Outcome.normal(
          rec.promoted(a.instance(), intent.from(), intent.point()),
          "Promoted",
          a.instance()
              + " takes writes: the failover that promoted it read-only (replacing "
              + intent.from()
              + ") is complete");
    }
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

  private static Outcome restoreSkipped(Step.RestoreSkipped k, TopologyRecord rec) {
    return Outcome.warning(
        rec.withRestoredFrom(TopologyRecord.RESTORE_SKIPPED),
        "RestoreSkipped",
        StepText.restoreSkipped(k));
  }

  private Outcome restore(Step.Restore r, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    // Looked at again just before the load: a client may have written since the round observed.
    InstanceState now = observeOne(ctx, r.primary());
    if (!now.reachable()) {
      throw new InstanceException(
          r.primary() + " did not answer; the load starts in a later round");
    }
    if (!dialect.gtids().isEmpty(now.executed())) {
      return restoreSkipped(new Step.RestoreSkipped(r.primary(), List.of(r.primary())), rec);
    }
    // No replica is attached yet, so no one could acknowledge the loaded rows: semi-sync off
    // until the replicas have joined (the planner turns it back on after them).
    client(ctx, r.primary())
        .execute(
            "restore-semi-sync-off", dialect.semiSyncSource(false, ctx.semiSyncTimeoutMillis()));
    // Recorded before it starts: a load whose operator dies is never started again over what it
    // wrote (a restarted operator asks the primary how far it came).
    ctx.save(rec.withRestoredFrom(TopologyRecord.RESTORE_LOADING));
    if (!ctx.restorer().start(ctx.addresses().get(r.primary()))) {
      ctx.save(rec);
      throw new InstanceException("no free restore worker; the load starts in a later round");
    }
    return Outcome.normal(
        rec.withRestoredFrom(TopologyRecord.RESTORE_LOADING),
        "Restoring",
        "loading fromBackup into " + r.primary() + " in the background");
  }

  private Outcome restoreDone(Step.RestoreDone d, Context ctx) throws InstanceException {
    // Stored before the load is forgotten: a lost write must not look like an interrupted load.
    ctx.save(ctx.record().withRestoredFrom(d.location()));
    ctx.restorer().forget();
    return Outcome.normal(
        ctx.record().withRestoredFrom(d.location()),
        "Restored",
        "loaded " + d.location() + " into " + d.primary());
  }

  private Outcome rebuild(Step.Rebuild r, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    Instant now = clock.instant();
    boolean resumed = "Resumed".equals(r.why());
    // A copy resumed, or following a volume replacement, continues that record (reason, start).
    RebuildRecord previous =
        resumed || "CrashRecoveryFailed".equals(r.why()) ? rec.rebuild() : null;
    String artifact =
        r.errantAfter() == null
            ? null
            : r.instance()
                + "-"
                + DateTimeFormatter.ISO_INSTANT.format(now).replace(':', '-')
                + ".sql";
    // A resumed rebuild whose member shows no errant transaction any more exported them already.
    String location =
        artifact != null
            ? ctx.rebuilder().location(artifact)
            : previous == null ? null : previous.errantTransactions();
    RebuildRecord started =
        new RebuildRecord(
            r.instance(),
            r.source(),
            previous == null ? r.why() : previous.reason(),
            RebuildRecord.COPYING,
            previous == null ? now : previous.startedAt(),
            null,
            location,
            null);
    // Recorded before the member is touched: an operator that dies from here on finds the member
    // held out of the topology and resumes the rebuild (which exports before it wipes).
    ctx.save(rec.withRebuild(started));
    boolean queued =
        ctx.rebuilder()
            .start(
                new Rebuilder.Job(
                    r.instance(),
                    ctx.addresses().get(r.instance()),
                    ctx.addresses().get(r.source()),
                    r.errantAfter(),
                    artifact,
                    credentials));
    if (!queued) {
      throw new InstanceException("no free rebuild worker; the rebuild starts in a later round");
    }
    return Outcome.normal(
        rec.withRebuild(started),
        "Rebuilding",
        "rebuilding "
            + r.instance()
            + " from "
            + r.source()
            + StepText.rebuild(started.reason())
            + (resumed ? ", resumed: its copy was not running" : "")
            + (artifact == null ? "" : "; its errant transactions go to " + location));
  }

  private Outcome replaceVolume(Step.ReplaceVolume v, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    RebuildRecord current = rec.rebuild();
    boolean first =
        current == null
            || !RebuildRecord.REPLACING_VOLUME.equals(current.phase())
            || !v.instance().equals(current.member());
    RebuildRecord replacing =
        first
            ? new RebuildRecord(
                v.instance(),
                null,
                "CrashRecoveryFailed",
                RebuildRecord.REPLACING_VOLUME,
                clock.instant(),
                null,
                null,
                v.evidence())
            : current;
    if (first) {
      // Recorded before anything is deleted: an operator that dies from here on finds the member
      // held out and repeats the replacement, which acts only on what was made before this.
      ctx.save(rec.withRebuild(replacing));
    }
    String did = ctx.rebuilder().replaceVolume(v.instance(), replacing.startedAt());
    if (did == null) {
      return Outcome.quiet(rec.withRebuild(replacing));
    }
    return Outcome.warning(
        rec.withRebuild(replacing),
        "ReplacingVolume",
        v.instance() + ": " + v.evidence() + "; " + did);
  }

  private Outcome rebuildDone(Step.RebuildDone d, Context ctx) throws InstanceException {
    TopologyRecord rec = ctx.record();
    Rebuilder.Progress p = ctx.rebuilder().progress();
    RebuildRecord current = rec.rebuild();
    // Nothing errant found by an export that ran: no artifact to name.
    boolean keepLocation = p == null || !p.exportRan() || p.exported() > 0;
    RebuildRecord finished =
        current.finished(clock.instant(), d.failure(), p == null ? null : p.doing(), keepLocation);
    if (d.failure() == null) {
      // A fresh copy: whatever its data differed in before is gone with it.
      rec = rec.withContent(rec.content().rebuilt(d.instance()));
    }
    // Stored before the copy is forgotten: a lost write must not look like an interrupted copy
    // (which would wipe and copy the member again).
    ctx.save(rec.withRebuild(finished));
    ctx.rebuilder().forget();
    if (d.failure() != null) {
      return Outcome.warning(
          rec.withRebuild(finished),
          "RebuildFailed",
          "rebuilding "
              + d.instance()
              + " failed: "
              + d.failure()
              + "; it is kept out of the cluster until the rebuild is requested again");
    }
    return Outcome.normal(
        rec.withRebuild(finished),
        "Rebuilt",
        d.instance()
            + " was rebuilt from "
            + current.source()
            + " in "
            + finished.took().toSeconds()
            + "s"
            + (finished.errantTransactions() == null
                ? ""
                : "; "
                    + (p != null && p.exported() > 0 ? p.exported() + " " : "its ")
                    + "errant transactions are kept at "
                    + finished.errantTransactions()));
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
        "primary moved from " + s.from() + " to " + s.to() + StepText.switchover(s.why()));
  }

  private Outcome failover(Step.Failover f, Context ctx) throws InstanceException {
    return new Failover(
            dialect.gtids(), new ServerFailoverActions(ctx), boundaries, clock, catchUpSeconds)
        .run(f, ctx.record(), List.copyOf(ctx.addresses().keySet()), ctx::save);
  }

  /** A failover's actions as statements on the cluster's servers. */
  private final class ServerFailoverActions implements Failover.Actions {

    private final Context ctx;

    ServerFailoverActions(Context ctx) {
      this.ctx = ctx;
    }

    @Override
    public void stopReceiving(String member) throws InstanceException {
      // The applier first, while the receiver still runs: MariaDB purges the relay log when a
      // thread starts with both stopped, and with it acknowledged commits not yet applied.
      List<String> statements = new ArrayList<>(dialect.startApplier());
      statements.addAll(dialect.stopReceiving());
      try (InstanceClient.Session session = client(ctx, member).open()) {
        if (session.query(dialect.replicaStatusQuery()).isEmpty()) {
          // No source at all (an old primary a previous failover left unattached, a member
          // being rebuilt): it receives from no one, so it can acknowledge nothing. Starting
          // its applier would only fail, and with it every failover after the first.
          return;
        }
        // A receiver reconnecting to the silent old primary holds the STOP until its read
        // times out: allow that, or the failover fails and waits a round.
        session.execute(
            "failover-stop-receiving",
            statements,
            timeout.plusSeconds(SqlDialect.RECEIVER_NET_TIMEOUT_SECONDS));
      }
    }

    @Override
    public InstanceState observe(String member) {
      return observeOne(ctx, member);
    }

    @Override
    public InstanceState probe(String member) {
      return prober.observe(member, Observer.ordinal(member), ctx.addresses().get(member));
    }

    @Override
    public void fence(String member) throws InstanceException {
      fenceAndDisconnect(client(ctx, member));
    }

    @Override
    public Failover.Promotion candidate(String member) throws InstanceException {
      // One connection from the wait to the promotion: no new handshake between them.
      return new SessionPromotion(ctx, client(ctx, member).open());
    }

    @Override
    public void repoint(String member, String primary) throws InstanceException {
      Address source = ctx.addresses().get(primary);
      client(ctx, member)
          .execute(
              "failover-repoint",
              dialect.replicateFrom(
                  source.host(),
                  source.port(),
                  credentials.replicationUser(),
                  credentials.replicationPassword()));
    }
  }

  /** The failover's candidate over one session, from its catch-up to its promotion. */
  private final class SessionPromotion implements Failover.Promotion {

    private final Context ctx;
    private final InstanceClient.Session session;

    SessionPromotion(Context ctx, InstanceClient.Session session) {
      this.ctx = ctx;
      this.session = session;
    }

    @Override
    public boolean applied(String point) throws InstanceException {
      return waitApplied(session, point);
    }

    @Override
    public void promote(boolean writable) throws InstanceException {
      session.execute(
          "failover-promote",
          writable
              ? dialect.promote(ctx.withReplicas(), ctx.semiSyncTimeoutMillis())
              : dialect.promoteFenced(ctx.withReplicas(), ctx.semiSyncTimeoutMillis()));
    }

    @Override
    public void close() {
      session.close();
    }
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
    try (InstanceClient.Session s = client.open()) {
      return waitApplied(s, position);
    }
  }

  /** Blocks on the server until it applied {@code position} (no polling), at most catch-up. */
  private boolean waitApplied(InstanceClient.Session client, String position)
      throws InstanceException {
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
