package dev.bosun.common.backup;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.FailedReconciles;
import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * Takes the backups of one backup kind: once, or on a cron schedule the operator keeps itself (no
 * CronJob API needed), in the background on a bounded pool, keeping the newest {@code keep}. The
 * steps are the same for every database: read the schedule, open the store, find the cluster,
 * follow the running backup (or start one when due), record it and prune, or say why not. What a
 * backup is for one database, and how it starts, is its subclass's part, the {@link BackupEngine}.
 * Closing it stops the backup threads.
 *
 * @param <P> the backup kind (first: JOSDK reads the primary type from the first type argument)
 * @param <S> the status type of the backup kind
 * @param <C> the cluster kind it backs up
 * @param <R> what one backup job produces
 */
public abstract class BackupReconciler<P extends CustomResource<?, S>, S, C extends HasMetadata, R>
    implements Reconciler<P>, BackupEngine<P, C, R>, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BackupReconciler.class);

  /** How often a running backup's progress is written to the status. */
  public static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(2);

  /** When a failed backup, or a missing cluster, is looked at again. */
  static final Duration RETRY = Duration.ofSeconds(30);

  private final Class<C> clusterType;
  private final Class<S> statusType;
  private final BackgroundJobs<R> jobs;
  private final EventRecorder events;
  private final Clock clock;
  // The store key of each job submitted and not yet forgotten, for status.inProgress: the runner
  // only hands a job's result (which names the key) over once it is done.
  private final Map<String, String> keys = new ConcurrentHashMap<>();

  protected BackupReconciler(
      Class<C> clusterType,
      Class<S> statusType,
      BackgroundJobs<R> jobs,
      EventRecorder events,
      Clock clock) {
    this.clusterType = clusterType;
    this.statusType = statusType;
    this.jobs = jobs;
    this.events = events;
    this.clock = clock;
  }

  @Override
  public UpdateControl<P> reconcile(P backup, Context<P> context) {
    // The status holds the schedule's bookkeeping, and a stale copy would take a backup twice:
    // every write of it goes through CachedStatusWrites, so the backup JOSDK hands over is never
    // older than this operator's own last write, and no GET is needed.
    Round<P> r = roundOf(backup, context, now());
    BackupTiming.Schedule schedule = BackupTiming.schedule(r.request().schedule());
    if (schedule.invalidSpec().isPresent()) {
      // A cron that cannot parse is not retried: the next edit of the spec wakes the backup.
      return fail(r, r.previous().copy(), "InvalidSpec", schedule.invalidSpec().get(), null);
    }
    BackupTarget target;
    try {
      target = openStore(backup, r.client());
    } catch (BackupStoreException e) {
      return fail(r, r.previous().copy(), e.reason(), e.conditionMessage(), e.retryAfter());
    }
    C cluster = findCluster(r);
    if (cluster == null) {
      String message =
          clusterType.getSimpleName()
              + " "
              + r.request().clusterName()
              + " does not exist in this namespace";
      return fail(r, r.previous().copy(), BackupReasons.WAITING_FOR_CLUSTER, message, RETRY);
    }
    return followJob(r, cluster, target, decideTiming(r, schedule.schedule()));
  }

  /** The backup one reconcile works on, what it asks for and what its status held; unchanged. */
  private record Round<B extends HasMetadata>(
      B backup,
      Context<B> context,
      ZonedDateTime now,
      BackupRequest request,
      BackupStatus previous) {

    KubernetesClient client() {
      return context.getClient();
    }

    String jobKey() {
      return backup.getMetadata().getUid();
    }
  }

  private Round<P> roundOf(P backup, Context<P> context, ZonedDateTime now) {
    return new Round<>(backup, context, now, request(backup), BackupStatus.of(backup.getStatus()));
  }

  /** Step 3: the cluster to back up, in the backup's namespace; null when there is none. */
  private C findCluster(Round<P> r) {
    return r.client()
        .resources(clusterType)
        .inNamespace(r.backup().getMetadata().getNamespace())
        .withName(r.request().clusterName())
        .get();
  }

  /** Step 4: whether a backup is due now, and when the next one is. */
  private BackupTiming.Decision decideTiming(Round<P> r, Optional<CronSchedule> schedule) {
    Optional<ZonedDateTime> last =
        Optional.ofNullable(r.previous().lastBackup).map(BackupRecord::time);
    ZonedDateTime created = ZonedDateTime.parse(r.backup().getMetadata().getCreationTimestamp());
    return BackupTiming.decide(schedule, last, created, r.now());
  }

  /**
   * Step 5: the backup in the background: started when due, reported while it runs, recorded (or
   * reported as failed) when it ended; then the idle status until the next one.
   */
  private UpdateControl<P> followJob(
      Round<P> r, C cluster, BackupTarget target, BackupTiming.Decision decision) {
    Optional<BackgroundJobs.State<R>> job = jobs.state(r.jobKey());
    if (job.isEmpty()) {
      return decision.due()
          ? startJob(r, cluster, target)
          : recordIdle(r, r.previous().copy(), decision);
    }
    if (job.get() instanceof BackgroundJobs.Running<R> running) {
      BackupProgress progress =
          BackupProgress.of(running.since(), keys.get(r.jobKey()), running.progress());
      return progress(
          r, BackupReasons.BACKING_UP, since(running.description(), running.since()), progress);
    }
    if (job.get() instanceof BackgroundJobs.Failed<R> failed) {
      forget(r.jobKey());
      String message =
          failed.description()
              + " failed: "
              + HumanMessages.bounded(failed.message(), HumanMessages.MAX_LENGTH);
      return fail(r, ended(r), BackupReasons.FAILED, message, RETRY);
    }
    return record(r, target, (BackgroundJobs.Done<R>) job.get(), decision);
  }

  /** Hands the backup to the background pool; the rounds that follow watch it. */
  private UpdateControl<P> startJob(Round<P> r, C cluster, BackupTarget target) {
    Instant now = r.now().toInstant();
    Start<R> start = start(r.backup(), cluster, target, now, r.client());
    if (start instanceof Blocked<R> blocked) {
      return fail(r, r.previous().copy(), blocked.reason(), blocked.message(), blocked.retry());
    }
    Job<R> job = (Job<R>) start;
    keys.put(r.jobKey(), job.key());
    if (!jobs.submit(r.jobKey(), job.description(), now, job.work())) {
      keys.remove(r.jobKey());
      String message =
          jobs.threads()
              + " backups are running and "
              + jobs.queued()
              + " waiting; this one starts when there is room";
      return progress(r, BackupReasons.QUEUED, message, null);
    }
    return progress(
        r,
        BackupReasons.BACKING_UP,
        since(job.description(), now),
        BackupProgress.of(now, job.key(), 0));
  }

  /**
   * A finished job: its backup in the status, retention applied inside the backup's own prefix,
   * then the idle status; or the reason recording it failed.
   */
  private UpdateControl<P> record(
      Round<P> r, BackupTarget target, BackgroundJobs.Done<R> done, BackupTiming.Decision next) {
    try {
      Recorded recorded = recorded(r.backup(), done.result());
      // Only keys under this backup's own prefix (inside its namespace) are ever deleted.
      List<BackupRecord> kept = target.retain(r.request().keep() == null ? 7 : r.request().keep());
      BackupStatus status = r.previous().copy();
      status.lastBackup = BackupRecord.of(recorded.stored(), done.since());
      recorded.fields().forEach(status::set);
      status.backups = kept;
      status.backupCount = kept.size();
      LOG.info("{}/{}: {}", namespace(r), r.backup().getMetadata().getName(), recorded.message());
      events.normal(r.backup(), BackupReasons.SUCCEEDED, recorded.message());
      return recordIdle(r, status, next);
    } catch (IOException | RuntimeException e) {
      // The status gets a sentence; the log keeps the exception.
      LOG.warn("recording the {} failed", done.description(), e);
      String message = "recording the " + done.description() + " failed: " + jobs.describe(e);
      return fail(r, ended(r), BackupReasons.FAILED, message, RETRY);
    } finally {
      forget(r.jobKey());
    }
  }

  /** Step 6: {@code status} between backups, and a wake-up for the next scheduled one. */
  private UpdateControl<P> recordIdle(
      Round<P> r, BackupStatus status, BackupTiming.Decision decision) {
    ZonedDateTime next = decision.next().orElse(null);
    status.nextScheduleTime = next;
    status.observedGeneration = r.backup().getMetadata().getGeneration();
    status.inProgress = null;
    status.conditions = conditions(r, BackupConditions.idle(status.lastBackup, decision.next()));
    UpdateControl<P> control = write(r, status);
    if (next == null) {
      return control;
    }
    Duration wait = Duration.between(r.now(), next);
    return control.rescheduleAfter(
        wait.isNegative() ? Duration.ofSeconds(1) : wait.plusMillis(200));
  }

  /**
   * Progressing while the background backup runs ({@code inProgress}) or waits for a worker (null);
   * looked at again shortly, and written only when the figures changed.
   */
  private UpdateControl<P> progress(
      Round<P> r, String reason, String message, BackupProgress inProgress) {
    BackupStatus status = r.previous().copy();
    status.observedGeneration = r.backup().getMetadata().getGeneration();
    status.inProgress = inProgress;
    status.conditions =
        conditions(r, BackupConditions.running(r.previous().conditions, reason, message));
    return write(r, status).rescheduleAfter(PROGRESS_INTERVAL);
  }

  /** {@code status} with the failed conditions, written if changed; a new problem is told once. */
  private UpdateControl<P> fail(
      Round<P> r, BackupStatus status, String reason, String message, Duration retry) {
    boolean told =
        Conditions.find(r.previous().conditions, BackupConditions.READY)
            .map(c -> reason.equals(c.getReason()) && Objects.equals(message, c.getMessage()))
            .orElse(false);
    if (!told) {
      LOG.warn("{}/{}: {}: {}", namespace(r), r.backup().getMetadata().getName(), reason, message);
      events.warning(r.backup(), reason, message);
    }
    status.observedGeneration = r.backup().getMetadata().getGeneration();
    status.conditions = conditions(r, BackupConditions.failed(reason, message));
    UpdateControl<P> control = write(r, status);
    return retry == null ? control : control.rescheduleAfter(retry);
  }

  @Override
  public ErrorStatusUpdateControl<P> updateErrorStatus(P backup, Context<P> context, Exception e) {
    return FailedReconciles.record(
        backup,
        context,
        e,
        message -> {
          BackupStatus previous = BackupStatus.of(backup.getStatus());
          BackupStatus status = previous.copy();
          status.observedGeneration = backup.getMetadata().getGeneration();
          status.conditions =
              Conditions.merge(
                  previous.conditions,
                  BackupConditions.failed(FailedReconciles.REASON, message),
                  Conditions.generationOf(backup),
                  clock);
          return status.as(statusType);
        });
  }

  /** Stops the backup threads: the operator is closing. */
  @Override
  public void close() {
    jobs.close();
  }

  /** Writes {@code status} when it differs from the stored one (see {@link #reconcile}). */
  private UpdateControl<P> write(Round<P> r, BackupStatus status) {
    CachedStatusWrites.applyIfChanged(r.backup(), status.as(statusType), r.context());
    return UpdateControl.noUpdate();
  }

  /** The desired conditions merged into the stored ones (transition times kept). */
  private List<Condition> conditions(Round<P> r, List<DesiredCondition> desired) {
    return Conditions.merge(
        r.previous().conditions, desired, Conditions.generationOf(r.backup()), clock);
  }

  /** The stored status without the progress of a backup that ended unrecorded. */
  private BackupStatus ended(Round<P> r) {
    BackupStatus status = r.previous().copy();
    status.inProgress = null;
    return status;
  }

  private void forget(String jobKey) {
    jobs.forget(jobKey);
    keys.remove(jobKey);
  }

  private ZonedDateTime now() {
    return ZonedDateTime.now(clock).withZoneSameInstant(ZoneOffset.UTC).withNano(0);
  }

  private static String since(String description, Instant since) {
    return description + " since " + since;
  }

  private String namespace(Round<P> r) {
    return r.backup().getMetadata().getNamespace();
  }
}
