package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackupReasons;
import dev.bosun.common.backup.BackupRecord;
import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.backup.BackupTiming;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.FreshPrimary;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.status.StatusRecorder;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.backup.BackgroundJobs;
import dev.bosun.mysql.backup.JobFailures;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.topology.Address;
import dev.bosun.mysql.topology.Addressing;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLBackupStatus;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a MySQLCluster's logical backups: once, or on a cron schedule the operator keeps itself (no
 * CronJob API needed), from a healthy replica (the primary only when it is alone), keeping the
 * newest {@code keep} dumps.
 */
@ControllerConfiguration(fieldManager = MySQLOperator.NAME)
public class MySQLBackupReconciler implements Reconciler<MySQLBackup> {

  private static final Logger LOG = LoggerFactory.getLogger(MySQLBackupReconciler.class);

  private final EventRecorder events;
  private final Addressing addressing;
  private final MySQLBackupStores stores;
  private static final Duration PROGRESS_POLL = Duration.ofSeconds(2);
  private final Clock clock;
  // Dumps take as long as the data is large: never on a reconcile thread. Two at a time here.
  private final BackgroundJobs<DumpRun> dumps = new BackgroundJobs<>("mysql-backup", 2, 32);

  public MySQLBackupReconciler(
      EventRecorder events, Addressing addressing, MySQLBackupStores stores, Clock clock) {
    this.events = events;
    this.addressing = addressing;
    this.stores = stores;
    this.clock = clock;
  }

  @Override
  public UpdateControl<MySQLBackup> reconcile(MySQLBackup cached, Context<MySQLBackup> context) {
    // The status holds the schedule's bookkeeping: a stale copy would take a backup twice.
    Optional<MySQLBackup> live = FreshPrimary.read(context.getClient(), cached);
    if (live.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    Round r =
        new Round(
            live.get(), context, ZonedDateTime.now(clock).withZoneSameInstant(ZoneOffset.UTC));
    Optional<UpdateControl<MySQLBackup>> stop =
        parseSchedule(r).or(() -> openStore(r)).or(() -> findCluster(r));
    if (stop.isPresent()) {
      return stop.get();
    }
    decideTiming(r);
    return followDump(r).orElseGet(() -> recordIdle(r));
  }

  /** What one reconcile of a backup has learnt so far, handed from step to step. */
  private static final class Round {
    final MySQLBackup b;
    final Context<MySQLBackup> context;
    final ZonedDateTime now;
    final MySQLBackupStatus previous;
    final MySQLBackupStatus status;
    Optional<CronSchedule> schedule;
    BackupTarget target;
    MySQLCluster cluster;
    BackupTiming.Decision decision;

    Round(MySQLBackup b, Context<MySQLBackup> context, ZonedDateTime now) {
      this.b = b;
      this.context = context;
      this.now = now;
      this.previous = b.getStatus();
      this.status = copy(previous);
    }

    String jobKey() {
      return b.getMetadata().getUid();
    }
  }

  /** Step 1: the schedule, if any; one cron cannot parse is InvalidSpec and is not retried. */
  private Optional<UpdateControl<MySQLBackup>> parseSchedule(Round r) {
    BackupTiming.Schedule read = BackupTiming.schedule(r.b.getSpec().getSchedule());
    r.schedule = read.schedule();
    return read.invalidSpec().map(message -> fail(r.b, "InvalidSpec", message, null));
  }

  /** Step 2: the store the spec names, through common's one store API. */
  private Optional<UpdateControl<MySQLBackup>> openStore(Round r) {
    try {
      r.target = stores.open(r.b);
      return Optional.empty();
    } catch (BackupStoreException e) {
      return Optional.of(fail(r.b, e.reason(), e.conditionMessage(), e.retryAfter()));
    }
  }

  /** Step 3: the cluster to dump, in the backup's namespace. */
  private Optional<UpdateControl<MySQLBackup>> findCluster(Round r) {
    String name = r.b.getSpec().getClusterName();
    r.cluster =
        r.context
            .getClient()
            .resources(MySQLCluster.class)
            .inNamespace(r.b.getMetadata().getNamespace())
            .withName(name)
            .get();
    if (r.cluster != null) {
      return Optional.empty();
    }
    return Optional.of(
        fail(
            r.b,
            BackupReasons.WAITING_FOR_CLUSTER,
            "MySQLCluster " + name + " does not exist in this namespace",
            Duration.ofSeconds(30)));
  }

  /** Step 4: whether a backup is due now, and when the next one is. */
  private void decideTiming(Round r) {
    ZonedDateTime last =
        r.previous == null || r.previous.getLastBackup() == null
            ? null
            : r.previous.getLastBackup().time();
    r.decision =
        BackupTiming.decide(
            r.schedule,
            Optional.ofNullable(last),
            ZonedDateTime.parse(r.b.getMetadata().getCreationTimestamp()),
            r.now);
  }

  /**
   * Step 5: the dump in the background: started when due, reported while it runs, recorded (or
   * reported as failed) when it ended. Empty when nothing is left to say but the idle status.
   */
  private Optional<UpdateControl<MySQLBackup>> followDump(Round r) {
    String jobKey = r.jobKey();
    var job = dumps.state(jobKey);
    if (r.decision.due() && job.isEmpty()) {
      return Optional.of(startDump(r.b, r.cluster, r.target, r.now, r.context.getClient()));
    }
    if (job.isPresent() && job.get() instanceof BackgroundJobs.Running<DumpRun> running) {
      return Optional.of(
          progress(r.b, "BackingUp", running.description() + " since " + running.since()));
    }
    if (job.isPresent() && job.get() instanceof BackgroundJobs.Failed<DumpRun> failed) {
      dumps.forget(jobKey);
      return Optional.of(
          fail(
              r.b,
              BackupReasons.FAILED,
              failed.description()
                  + " failed: "
                  + HumanMessages.bounded(failed.message(), HumanMessages.MAX_LENGTH),
              Duration.ofSeconds(30)));
    }
    if (job.isPresent() && job.get() instanceof BackgroundJobs.Done<DumpRun> done) {
      try {
        record(r.b, r.status, r.target, done.result());
      } catch (Exception e) {
        // The status gets a sentence; the log keeps the exception.
        LOG.warn("recording the dump of {} failed", done.result().source(), e);
        return Optional.of(
            fail(
                r.b,
                BackupReasons.FAILED,
                "recording the dump of "
                    + done.result().source()
                    + " failed: "
                    + JobFailures.describe(e),
                Duration.ofSeconds(30)));
      } finally {
        dumps.forget(jobKey);
      }
    }
    return Optional.empty();
  }

  /** Step 6: the status between backups, and a wake-up for the next scheduled one. */
  private UpdateControl<MySQLBackup> recordIdle(Round r) {
    MySQLBackupStatus status = r.status;
    ZonedDateTime next = r.decision.next().orElse(null);
    status.setNextScheduleTime(next);
    status.setObservedGeneration(r.b.getMetadata().getGeneration());
    String when =
        status.getLastBackup() == null ? "never" : status.getLastBackup().time().toString();
    status.setConditions(
        Conditions.merge(
            r.previous == null ? null : r.previous.getConditions(),
            List.of(
                DesiredCondition.isTrue("Ready", BackupReasons.SUCCEEDED, "last backup " + when),
                DesiredCondition.isFalse(
                    "Progressing",
                    "Idle",
                    next == null ? "one-shot backup done" : "next backup " + next),
                DesiredCondition.isFalse(
                    "Degraded", BackupReasons.WORKING, "the last backup succeeded")),
            r.b.getMetadata().getGeneration() == null ? 0 : r.b.getMetadata().getGeneration(),
            clock));
    UpdateControl<MySQLBackup> control = StatusRecorder.patchIfChanged(r.b, status);
    if (next != null) {
      Duration wait = Duration.between(r.now, next);
      control =
          control.rescheduleAfter(wait.isNegative() ? Duration.ofSeconds(1) : wait.plusMillis(200));
    }
    return control;
  }

  /** One dump taken in the background: from where, into which key, when it started. */
  record DumpRun(String source, String key, ZonedDateTime at, LogicalDump.Result result) {}

  /** Hands the dump to the background pool; the rounds that follow watch it. */
  private UpdateControl<MySQLBackup> startDump(
      MySQLBackup b,
      MySQLCluster cluster,
      BackupTarget target,
      ZonedDateTime now,
      KubernetesClient client) {
    String source = source(cluster);
    if (source == null) {
      return fail(
          b,
          "NoSource",
          "MySQLCluster "
              + b.getSpec().getClusterName()
              + " has no healthy replica (nor a lone primary) to back up from",
          Duration.ofSeconds(10));
    }
    ClusterSecrets.Found secrets = ClusterSecrets.ensure(client, cluster);
    if (secrets.credentials() == null) {
      return fail(b, secrets.problemReason(), secrets.problem(), Duration.ofSeconds(30));
    }
    ClusterModel m = ClusterModel.of(cluster);
    Address address = addressing.of(m.namespace(), m.name(), source, m.port());
    String key = target.newKey(now.toInstant(), "sql");
    String description = "dump of " + source + " into " + key;
    boolean accepted =
        dumps.submit(
            b.getMetadata().getUid(),
            description,
            now.toInstant(),
            () ->
                new DumpRun(
                    source,
                    key,
                    now,
                    new LogicalDump(
                            SqlDialect.of(m.flavour()),
                            secrets.credentials(),
                            Duration.ofSeconds(10))
                        .dump(address, target.store(), key)));
    return accepted
        ? progress(b, "BackingUp", description + " started")
        : progress(b, "Queued", "waiting for a free backup worker");
  }

  /** Records a finished dump in status, applies retention inside the backup's own prefix. */
  private void record(MySQLBackup b, MySQLBackupStatus status, BackupTarget target, DumpRun run)
      throws Exception {
    LogicalDump.Result r = run.result();
    status.setLastBackup(BackupRecord.of(r.stored(), run.at().toInstant()));
    status.setLastGtid(r.gtid());
    status.setLastSource(run.source());
    List<BackupRecord> kept =
        target.retain(b.getSpec().getKeep() == null ? 7 : b.getSpec().getKeep());
    status.setBackups(kept);
    status.setBackupCount(kept.size());
    String message =
        "dumped "
            + r.stored().size()
            + " bytes from "
            + run.source()
            + " at GTID "
            + r.gtid()
            + " to "
            + r.stored().location();
    LOG.info("{}/{}: {}", b.getMetadata().getNamespace(), b.getMetadata().getName(), message);
    events.normal(b, BackupReasons.SUCCEEDED, message);
  }

  /** Progressing while the background dump runs; looked at again shortly. */
  private UpdateControl<MySQLBackup> progress(MySQLBackup b, String reason, String message) {
    MySQLBackupStatus previous = b.getStatus();
    MySQLBackupStatus status = copy(previous);
    status.setObservedGeneration(b.getMetadata().getGeneration());
    List<DesiredCondition> conds = new ArrayList<>();
    conds.add(DesiredCondition.isTrue("Progressing", reason, message));
    Conditions.find(previous == null ? null : previous.getConditions(), "Ready")
        .ifPresentOrElse(
            r ->
                conds.add(
                    DesiredCondition.of(
                        "Ready", "True".equals(r.getStatus()), r.getReason(), r.getMessage())),
            () -> conds.add(DesiredCondition.isFalse("Ready", reason, message)));
    Conditions.find(previous == null ? null : previous.getConditions(), "Degraded")
        .ifPresentOrElse(
            r ->
                conds.add(
                    DesiredCondition.of(
                        "Degraded", "True".equals(r.getStatus()), r.getReason(), r.getMessage())),
            () ->
                conds.add(
                    DesiredCondition.isFalse("Degraded", BackupReasons.WORKING, "no failure")));
    status.setConditions(
        Conditions.merge(
            previous == null ? null : previous.getConditions(),
            conds,
            b.getMetadata().getGeneration() == null ? 0 : b.getMetadata().getGeneration(),
            clock));
    return StatusRecorder.patchIfChanged(b, status).rescheduleAfter(PROGRESS_POLL);
  }

  /** A healthy replica of the cluster, or its primary when it has no replica at all. */
  static String source(MySQLCluster c) {
    var s = c.getStatus();
    if (s == null || s.getInstances() == null) {
      return null;
    }
    for (Instances i : s.getInstances()) {
      if ("replica".equals(i.getRole()) && Boolean.TRUE.equals(i.getHealthy())) {
        return i.getName();
      }
    }
    int replicas = c.getSpec().getReplicas() == null ? 3 : c.getSpec().getReplicas();
    if (replicas == 1 && s.getPrimary() != null) {
      return s.getInstances().stream()
          .filter(i -> s.getPrimary().equals(i.getName()) && Boolean.TRUE.equals(i.getHealthy()))
          .map(Instances::getName)
          .findFirst()
          .orElse(null);
    }
    return null;
  }

  private UpdateControl<MySQLBackup> fail(
      MySQLBackup b, String reason, String message, Duration retry) {
    MySQLBackupStatus previous = b.getStatus();
    boolean changed =
        previous == null
            || !Conditions.find(previous.getConditions(), "Ready")
                .map(r -> reason.equals(r.getReason()) && Objects.equals(message, r.getMessage()))
                .orElse(false);
    if (changed) {
      LOG.warn(
          "{}/{}: {}: {}",
          b.getMetadata().getNamespace(),
          b.getMetadata().getName(),
          reason,
          message);
      events.warning(b, reason, message);
    }
    MySQLBackupStatus status = copy(previous);
    status.setObservedGeneration(b.getMetadata().getGeneration());
    status.setConditions(
        Conditions.merge(
            previous == null ? null : previous.getConditions(),
            List.of(
                DesiredCondition.isFalse("Ready", reason, message),
                DesiredCondition.isFalse("Progressing", reason, "waiting"),
                DesiredCondition.isTrue("Degraded", reason, message)),
            b.getMetadata().getGeneration() == null ? 0 : b.getMetadata().getGeneration(),
            clock));
    UpdateControl<MySQLBackup> control = StatusRecorder.patchIfChanged(b, status);
    return retry == null ? control : control.rescheduleAfter(retry);
  }

  private static MySQLBackupStatus copy(MySQLBackupStatus p) {
    return p == null ? new MySQLBackupStatus() : Serialization.clone(p);
  }
}
