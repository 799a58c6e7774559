package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackupConditions;
import dev.bosun.common.backup.BackupProgress;
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
import io.fabric8.kubernetes.api.model.Condition;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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

  /** How often a running dump's progress is written to the status. */
  static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(2);

  private final Clock clock;
  // Dumps take as long as the data is large: never on a reconcile thread. Two at a time here.
  private final BackgroundJobs<DumpRun> dumps = new BackgroundJobs<>("mysql-backup", 2, 32);
  // The store key of each dump submitted and not yet forgotten, for status.inProgress: the job
  // only hands its DumpRun (which names the key) over once it is done.
  private final Map<String, String> dumpKeys = new ConcurrentHashMap<>();

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
          progress(
              r.b,
              BackupReasons.BACKING_UP,
              running.description() + " since " + running.since(),
              BackupProgress.of(running.since(), dumpKeys.get(jobKey), running.progress())));
    }
    if (job.isPresent() && job.get() instanceof BackgroundJobs.Failed<DumpRun> failed) {
      forgetDump(jobKey);
      return Optional.of(
          fail(
              r.b,
              ended(r.previous),
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
                ended(r.previous),
                BackupReasons.FAILED,
                "recording the dump of "
                    + done.result().source()
                    + " failed: "
                    + JobFailures.describe(e),
                Duration.ofSeconds(30)));
      } finally {
        forgetDump(jobKey);
      }
    }
    return Optional.empty();
  }

  /** Forgets an ended dump once its result (or failure) is in the status. */
  private void forgetDump(String jobKey) {
    dumps.forget(jobKey);
    dumpKeys.remove(jobKey);
  }

  /** Step 6: the status between backups, and a wake-up for the next scheduled one. */
  private UpdateControl<MySQLBackup> recordIdle(Round r) {
    MySQLBackupStatus status = r.status;
    ZonedDateTime next = r.decision.next().orElse(null);
    status.setNextScheduleTime(next);
    status.setObservedGeneration(r.b.getMetadata().getGeneration());
    status.setInProgress(null);
    status.setConditions(
        conditions(r.b, BackupConditions.idle(status.getLastBackup(), r.decision.next())));
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
    String jobKey = b.getMetadata().getUid();
    dumpKeys.put(jobKey, key);
    boolean accepted =
        dumps.submit(
            jobKey,
            description,
            now.toInstant(),
            bytes ->
                new DumpRun(
                    source,
                    key,
                    now,
                    new LogicalDump(
                            SqlDialect.of(m.flavour()),
                            secrets.credentials(),
                            Duration.ofSeconds(10))
                        .dump(address, target.store(), key, bytes)));
    if (!accepted) {
      dumpKeys.remove(jobKey);
      return progress(b, BackupReasons.QUEUED, "waiting for a free backup worker", null);
    }
    return progress(
        b,
        BackupReasons.BACKING_UP,
        description + " since " + now.toInstant(),
        BackupProgress.of(now.toInstant(), key, 0));
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

  /**
   * Progressing while the background dump runs ({@code inProgress}) or waits for a worker (null);
   * looked at again shortly, and written only when the figures changed.
   */
  private UpdateControl<MySQLBackup> progress(
      MySQLBackup b, String reason, String message, BackupProgress inProgress) {
    MySQLBackupStatus previous = b.getStatus();
    MySQLBackupStatus status = copy(previous);
    status.setObservedGeneration(b.getMetadata().getGeneration());
    status.setInProgress(inProgress);
    status.setConditions(
        conditions(
            b,
            BackupConditions.running(
                previous == null ? null : previous.getConditions(), reason, message)));
    return StatusRecorder.patchIfChanged(b, status).rescheduleAfter(PROGRESS_INTERVAL);
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
    return fail(b, copy(b.getStatus()), reason, message, retry);
  }

  /** {@code status} with the failed conditions, written if changed; a new problem is told once. */
  private UpdateControl<MySQLBackup> fail(
      MySQLBackup b, MySQLBackupStatus status, String reason, String message, Duration retry) {
    MySQLBackupStatus previous = b.getStatus();
    boolean changed =
        previous == null
            || !Conditions.find(previous.getConditions(), BackupConditions.READY)
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
    status.setObservedGeneration(b.getMetadata().getGeneration());
    status.setConditions(conditions(b, BackupConditions.failed(reason, message)));
    UpdateControl<MySQLBackup> control = StatusRecorder.patchIfChanged(b, status);
    return retry == null ? control : control.rescheduleAfter(retry);
  }

  /** The desired conditions merged into the stored ones (transition times kept). */
  private List<Condition> conditions(MySQLBackup b, List<DesiredCondition> desired) {
    MySQLBackupStatus previous = b.getStatus();
    return Conditions.merge(
        previous == null ? null : previous.getConditions(),
        desired,
        b.getMetadata().getGeneration() == null ? 0 : b.getMetadata().getGeneration(),
        clock);
  }

  /** The stored status without the progress of a dump that ended unrecorded. */
  private static MySQLBackupStatus ended(MySQLBackupStatus previous) {
    MySQLBackupStatus status = copy(previous);
    status.setInProgress(null);
    return status;
  }

  private static MySQLBackupStatus copy(MySQLBackupStatus p) {
    return p == null ? new MySQLBackupStatus() : Serialization.clone(p);
  }
}
