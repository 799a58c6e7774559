package dev.bosun.common.backup;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.FreshPrimary;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.status.StatusRecorder;
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
  public UpdateControl<P> reconcile(P cached, Context<P> context) {
    // The status holds the schedule's bookkeeping: a stale copy would take a backup twice.
    Optional<P> live = FreshPrimary.read(context.getClient(), cached);
    if (live.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    Round r = new Round(live.get(), context.getClient(), now());
    Optional<UpdateControl<P>> stop =
        parseSchedule(r).or(() -> openStore(r)).or(() -> findCluster(r));
    if (stop.isPresent()) {
      return stop.get();
    }
    decideTiming(r);
    return followJob(r).orElseGet(() -> recordIdle(r));
  }

  /** What one reconcile of a backup has learnt so far, handed from step to step. */
  private final class Round {
    final P backup;
    final KubernetesClient client;
    final ZonedDateTime now;
    final BackupRequest request;
    final BackupStatus previous;
    final BackupStatus status;
    Optional<CronSchedule> schedule;
    BackupTarget target;
    C cluster;
    BackupTiming.Decision decision;

    Round(P backup, KubernetesClient client, ZonedDateTime now) {
      this.backup = backup;
      this.client = client;
      this.now = now;
      this.request = request(backup);
      this.previous = BackupStatus.of(backup.getStatus());
      this.status = previous.copy();
    }

    String jobKey() {
      return backup.getMetadata().getUid();
    }
  }

  /** Step 1: the schedule, if any; one cron cannot parse is InvalidSpec and is not retried. */
  private Optional<UpdateControl<P>> parseSchedule(Round r) {
    BackupTiming.Schedule read = BackupTiming.schedule(r.request.schedule());
    r.schedule = read.schedule();
    return read.invalidSpec().map(message -> fail(r, r.status, "InvalidSpec", message, null));
  }

  /** Step 2: the store the spec names, through common's one store API. */
  private Optional<UpdateControl<P>> openStore(Round r) {
    try {
      r.target = openStore(r.backup, r.client);
      return Optional.empty();
    } catch (BackupStoreException e) {
      return Optional.of(fail(r, r.status, e.reason(), e.conditionMessage(), e.retryAfter()));
    }
  }

  /** Step 3: the cluster to back up, in the backup's namespace. */
  private Optional<UpdateControl<P>> findCluster(Round r) {
    String name = r.request.clusterName();
    r.cluster =
        r.client
            .resources(clusterType)
            .inNamespace(r.backup.getMetadata().getNamespace())
            .withName(name)
            .get();
    if (r.cluster != null) {
      return Optional.empty();
    }
    String message = clusterType.getSimpleName() + " " + name + " does not exist in this namespace";
    return Optional.of(fail(r, r.status, BackupReasons.WAITING_FOR_CLUSTER, message, RETRY));
  }

  /** Step 4: whether a backup is due now, and when the next one is. */
  private void decideTiming(Round r) {
    Optional<ZonedDateTime> last =
        Optional.ofNullable(r.previous.lastBackup).map(BackupRecord::time);
    ZonedDateTime created = ZonedDateTime.parse(r.backup.getMetadata().getCreationTimestamp());
    r.decision = BackupTiming.decide(r.schedule, last, created, r.now);
  }

  /**
   * Step 5: the backup in the background: started when due, reported while it runs, recorded (or
   * reported as failed) when it ended. Empty when nothing is left to say but the idle status.
   */
  private Optional<UpdateControl<P>> followJob(Round r) {
    Optional<BackgroundJobs.State<R>> job = jobs.state(r.jobKey());
    if (job.isEmpty()) {
      return r.decision.due() ? Optional.of(startJob(r)) : Optional.empty();
    }
    if (job.get() instanceof BackgroundJobs.Running<R> running) {
      BackupProgress progress =
          BackupProgress.of(running.since(), keys.get(r.jobKey()), running.progress());
      return Optional.of(
          progress(
              r,
              BackupReasons.BACKING_UP,
              since(running.description(), running.since()),
              progress));
    }
    if (job.get() instanceof BackgroundJobs.Failed<R> failed) {
      forget(r.jobKey());
      String message =
          failed.description()
              + " failed: "
              + HumanMessages.bounded(failed.message(), HumanMessages.MAX_LENGTH);
      return Optional.of(fail(r, ended(r), BackupReasons.FAILED, message, RETRY));
    }
    return record(r, (BackgroundJobs.Done<R>) job.get());
  }

  /** Hands the backup to the background pool; the rounds that follow watch it. */
  private UpdateControl<P> startJob(Round r) {
    Instant now = r.now.toInstant();
    Start<R> start = start(r.backup, r.cluster, r.target, now, r.client);
    if (start instanceof Blocked<R> blocked) {
      return fail(r, r.status, blocked.reason(), blocked.message(), blocked.retry());
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
   * A finished job: its backup in the status, retention applied inside the backup's own prefix;
   * empty (the idle status follows) unless recording it failed.
   */
  private Optional<UpdateControl<P>> record(Round r, BackgroundJobs.Done<R> done) {
    try {
      Recorded recorded = recorded(r.backup, done.result());
      // Only keys under this backup's own prefix (inside its namespace) are ever deleted.
      List<BackupRecord> kept = r.target.retain(r.request.keep() == null ? 7 : r.request.keep());
      r.status.lastBackup = BackupRecord.of(recorded.stored(), done.since());
      recorded.fields().forEach(r.status::set);
      r.status.backups = kept;
      r.status.backupCount = kept.size();
      LOG.info("{}/{}: {}", namespace(r), r.backup.getMetadata().getName(), recorded.message());
      events.normal(r.backup, BackupReasons.SUCCEEDED, recorded.message());
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      // The status gets a sentence; the log keeps the exception.
      LOG.warn("recording the {} failed", done.description(), e);
      String message = "recording the " + done.description() + " failed: " + jobs.describe(e);
      return Optional.of(fail(r, ended(r), BackupReasons.FAILED, message, RETRY));
    } finally {
      forget(r.jobKey());
    }
  }

  /** Step 6: the status between backups, and a wake-up for the next scheduled one. */
  private UpdateControl<P> recordIdle(Round r) {
    BackupStatus status = r.status;
    ZonedDateTime next = r.decision.next().orElse(null);
    status.nextScheduleTime = next;
    status.observedGeneration = r.backup.getMetadata().getGeneration();
    status.inProgress = null;
    status.conditions = conditions(r, BackupConditions.idle(status.lastBackup, r.decision.next()));
    UpdateControl<P> control = write(r.backup, status);
    if (next == null) {
      return control;
    }
    Duration wait = Duration.between(r.now, next);
    return control.rescheduleAfter(
        wait.isNegative() ? Duration.ofSeconds(1) : wait.plusMillis(200));
  }

  /**
   * Progressing while the background backup runs ({@code inProgress}) or waits for a worker (null);
   * looked at again shortly, and written only when the figures changed.
   */
  private UpdateControl<P> progress(
      Round r, String reason, String message, BackupProgress inProgress) {
    BackupStatus status = r.previous.copy();
    status.observedGeneration = r.backup.getMetadata().getGeneration();
    status.inProgress = inProgress;
    status.conditions =
        conditions(r, BackupConditions.running(r.previous.conditions, reason, message));
    return write(r.backup, status).rescheduleAfter(PROGRESS_INTERVAL);
  }

  /** {@code status} with the failed conditions, written if changed; a new problem is told once. */
  private UpdateControl<P> fail(
      Round r, BackupStatus status, String reason, String message, Duration retry) {
    boolean told =
        Conditions.find(r.previous.conditions, BackupConditions.READY)
            .map(c -> reason.equals(c.getReason()) && Objects.equals(message, c.getMessage()))
            .orElse(false);
    if (!told) {
      LOG.warn("{}/{}: {}: {}", namespace(r), r.backup.getMetadata().getName(), reason, message);
      events.warning(r.backup, reason, message);
    }
    status.observedGeneration = r.backup.getMetadata().getGeneration();
    status.conditions = conditions(r, BackupConditions.failed(reason, message));
    UpdateControl<P> control = write(r.backup, status);
    return retry == null ? control : control.rescheduleAfter(retry);
  }

  @Override
  public ErrorStatusUpdateControl<P> updateErrorStatus(P backup, Context<P> context, Exception e) {
    String message = "reconcile failed, retrying: " + HumanMessages.describe(e);
    LOG.warn(message, e);
    BackupStatus previous = BackupStatus.of(backup.getStatus());
    BackupStatus status = previous.copy();
    status.observedGeneration = backup.getMetadata().getGeneration();
    status.conditions =
        Conditions.merge(
            previous.conditions,
            BackupConditions.failed("ReconcileError", message),
            Conditions.generationOf(backup),
            clock);
    return StatusRecorder.patchErrorIfChanged(backup, status.as(statusType));
  }

  /** Stops the backup threads: the operator is closing. */
  @Override
  public void close() {
    jobs.close();
  }

  private UpdateControl<P> write(P backup, BackupStatus status) {
    return StatusRecorder.patchIfChanged(backup, status.as(statusType));
  }

  /** The desired conditions merged into the stored ones (transition times kept). */
  private List<Condition> conditions(Round r, List<DesiredCondition> desired) {
    return Conditions.merge(
        r.previous.conditions, desired, Conditions.generationOf(r.backup), clock);
  }

  /** The stored status without the progress of a backup that ended unrecorded. */
  private BackupStatus ended(Round r) {
    BackupStatus status = r.previous.copy();
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

  private String namespace(Round r) {
    return r.backup.getMetadata().getNamespace();
  }
}
