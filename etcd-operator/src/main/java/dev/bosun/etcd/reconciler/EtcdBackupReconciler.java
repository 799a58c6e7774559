package dev.bosun.etcd.reconciler;

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
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.backup.EtcdBackupStores;
import dev.bosun.etcd.backup.SnapshotJobs;
import dev.bosun.etcd.backup.SnapshotTaker;
import dev.bosun.etcd.etcd.EtcdClients;
import dev.bosun.etcd.etcd.EtcdConnections;
import dev.bosun.etcd.etcd.EtcdMembership;
import dev.bosun.etcd.membership.ClusterRef;
import dev.bosun.etcd.membership.MemberAddressing;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupStatus;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles an EtcdBackup: when a snapshot is due (once, or at each cron time: the operator does
 * the scheduling, so no CronJob API is needed), stream it from a healthy member through the
 * maintenance API into the store, delete the snapshots beyond {@code keep}, and record time,
 * revision, size and location.
 */
@ControllerConfiguration(fieldManager = EtcdOperator.NAME)
public class EtcdBackupReconciler implements Reconciler<EtcdBackup> {

  private static final Logger LOG = LoggerFactory.getLogger(EtcdBackupReconciler.class);

  private final MemberAddressing addressing;
  private final EventRecorder events;
  private final Clock clock;
  private final Optional<java.nio.file.Path> volumeRoot;
  private final EtcdConnections connections;
  private final SnapshotJobs jobs;

  /** How often a running snapshot's progress is written to the status. */
  static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(2);

  public EtcdBackupReconciler(
      MemberAddressing addressing,
      EventRecorder events,
      Clock clock,
      Optional<java.nio.file.Path> volumeRoot,
      EtcdConnections connections,
      SnapshotJobs jobs) {
    this.connections = connections;
    this.jobs = jobs;
    this.addressing = addressing;
    this.events = events;
    this.clock = clock;
    this.volumeRoot = volumeRoot;
  }

  @Override
  public UpdateControl<EtcdBackup> reconcile(EtcdBackup cached, Context<EtcdBackup> context) {
    // The status holds the schedule's bookkeeping: a stale copy would take a snapshot twice.
    Optional<EtcdBackup> live = FreshPrimary.read(context.getClient(), cached);
    if (live.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    Round r = new Round(live.get(), context, ZonedDateTime.now(clock).withNano(0));
    return parseSchedule(r)
        .or(() -> openStore(r))
        .or(() -> followSnapshot(r))
        .or(() -> findCluster(r))
        .or(() -> connect(r))
        .orElseGet(() -> startSnapshot(r));
  }

  /** What one reconcile of a backup has learnt so far, handed from step to step. */
  private static final class Round {
    final EtcdBackup backup;
    final Context<EtcdBackup> context;
    final ZonedDateTime now;
    Optional<CronSchedule> schedule;
    BackupTarget target;
    BackupTiming.Decision decision;
    EtcdCluster cluster;
    List<URI> endpoints;
    EtcdClients clients;

    Round(EtcdBackup backup, Context<EtcdBackup> context, ZonedDateTime now) {
      this.backup = backup;
      this.context = context;
      this.now = now;
    }

    String clusterName() {
      return backup.getSpec().getClusterName();
    }
  }

  /** Step 1: the schedule, if any; one cron cannot parse is InvalidSpec and is not retried. */
  private Optional<UpdateControl<EtcdBackup>> parseSchedule(Round r) {
    BackupTiming.Schedule read = BackupTiming.schedule(r.backup.getSpec().getSchedule());
    r.schedule = read.schedule();
    return read.invalidSpec().map(message -> blocked(r.backup, "InvalidSpec", message, null));
  }

  /** Step 2: the store the spec names, through common's one store API. */
  private Optional<UpdateControl<EtcdBackup>> openStore(Round r) {
    try {
      r.target = EtcdBackupStores.open(r.context.getClient(), volumeRoot, r.backup);
      return Optional.empty();
    } catch (BackupStoreException e) {
      return Optional.of(blocked(r.backup, e.reason(), e.conditionMessage(), e.retryAfter()));
    }
  }

  /**
   * Step 3: whether a snapshot is due; a running one is reported (or recorded once it ended), and
   * nothing due leaves the idle status. Empty when a new snapshot is to be taken.
   */
  private Optional<UpdateControl<EtcdBackup>> followSnapshot(Round r) {
    EtcdBackupStatus previous = r.backup.getStatus();
    ZonedDateTime created = ZonedDateTime.parse(r.backup.getMetadata().getCreationTimestamp());
    Optional<ZonedDateTime> last =
        Optional.ofNullable(previous).map(EtcdBackupStatus::getLastBackup).map(BackupRecord::time);
    r.decision = BackupTiming.decide(r.schedule, last, created, r.now);
    Optional<SnapshotJobs.Job> running = jobs.job(r.backup.getMetadata().getUid());
    if (running.isPresent()) {
      return Optional.of(
          running.get().done()
              ? record(r.backup, running.get(), r.decision, r.target)
              : inProgress(r.backup, running.get()));
    }
    return r.decision.due() ? Optional.empty() : Optional.of(idle(r.backup, r.decision, r.now));
  }

  /** Step 4: the cluster and its healthy members, the endpoints a snapshot is taken from. */
  private Optional<UpdateControl<EtcdBackup>> findCluster(Round r) {
    r.cluster =
        r.context
            .getClient()
            .resources(EtcdCluster.class)
            .inNamespace(r.backup.getMetadata().getNamespace())
            .withName(r.clusterName())
            .get();
    r.endpoints = endpoints(r.cluster);
    if (!r.endpoints.isEmpty()) {
      return Optional.empty();
    }
    String message =
        r.cluster == null
            ? "EtcdCluster " + r.clusterName() + " does not exist"
            : "EtcdCluster " + r.clusterName() + " has no healthy member";
    return Optional.of(
        blocked(r.backup, BackupReasons.WAITING_FOR_CLUSTER, message, Duration.ofSeconds(10)));
  }

  /** Step 5: clients for the members (TLS from the cluster's Secret when it has one). */
  private Optional<UpdateControl<EtcdBackup>> connect(Round r) {
    try {
      r.clients = connections.of(r.context.getClient(), r.cluster);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(
          blocked(
              r.backup,
              BackupReasons.WAITING_FOR_CLUSTER,
              HumanMessages.bounded(e.getMessage(), HumanMessages.MAX_LENGTH),
              Duration.ofSeconds(30)));
    }
  }

  /** Step 6: the snapshot, taken in the background on a bounded pool. */
  private UpdateControl<EtcdBackup> startSnapshot(Round r) {
    String key = r.target.newKey(r.now.toInstant(), "db");
    SnapshotJobs.Job job;
    try {
      job =
          jobs.submit(
              r.backup.getMetadata().getUid(),
              r.now.toInstant(),
              key,
              bytes ->
                  new SnapshotTaker(new EtcdMembership(r.clients))
                      .take(r.endpoints, r.target.store(), key, bytes));
    } catch (RejectedExecutionException e) {
      return running(
              r.backup,
              BackupReasons.QUEUED,
              SnapshotJobs.THREADS
                  + " snapshots are running and "
                  + SnapshotJobs.QUEUE
                  + " waiting; this one starts when there is room",
              null)
          .rescheduleAfter(Duration.ofSeconds(30));
    }
    return inProgress(r.backup, job);
  }

  /** Not due: the next schedule time, and the last snapshot's success (or the first's time). */
  private UpdateControl<EtcdBackup> idle(
      EtcdBackup backup, BackupTiming.Decision decision, ZonedDateTime now) {
    EtcdBackupStatus status = copy(backup.getStatus(), backup);
    status.setNextScheduleTime(decision.next().orElse(null));
    status.setInProgress(null);
    status.setConditions(
        conditions(backup, BackupConditions.idle(status.getLastBackup(), decision.next())));
    return reschedule(StatusRecorder.patchIfChanged(backup, status), decision, now);
  }

  /** A snapshot running on the snapshot pool: its progress in the status, and a look soon. */
  private UpdateControl<EtcdBackup> inProgress(EtcdBackup backup, SnapshotJobs.Job job) {
    return running(
            backup,
            BackupReasons.BACKING_UP,
            "snapshot of "
                + backup.getSpec().getClusterName()
                + " into "
                + job.key()
                + " since "
                + job.startedAt(),
            BackupProgress.of(job.startedAt(), job.key(), job.bytes()))
        .rescheduleAfter(PROGRESS_INTERVAL);
  }

  /** Progressing: a snapshot runs ({@code progress}) or waits for room on the pool (null). */
  private UpdateControl<EtcdBackup> running(
      EtcdBackup backup, String reason, String message, BackupProgress progress) {
    EtcdBackupStatus previous = backup.getStatus();
    EtcdBackupStatus status = copy(previous, backup);
    status.setInProgress(progress);
    status.setConditions(
        conditions(
            backup,
            BackupConditions.running(
                previous == null ? null : previous.getConditions(), reason, message)));
    return StatusRecorder.patchIfChanged(backup, status);
  }

  /** A finished job: record its snapshot and apply retention, or report its failure. */
  private UpdateControl<EtcdBackup> record(
      EtcdBackup backup,
      SnapshotJobs.Job job,
      BackupTiming.Decision decision,
      BackupTarget target) {
    jobs.collect(backup.getMetadata().getUid());
    EtcdBackupStatus previous = backup.getStatus();
    SnapshotTaker.Snapshot snapshot;
    List<BackupRecord> kept;
    try {
      snapshot = job.result().join();
      // Only keys under this backup's own prefix (inside its namespace) are ever deleted.
      kept = target.retain(backup.getSpec().getKeep());
    } catch (IOException | UncheckedIOException | java.util.concurrent.CompletionException e) {
      Throwable cause =
          e instanceof java.util.concurrent.CompletionException && e.getCause() != null
              ? e.getCause()
              : e;
      String message = "snapshot failed, retrying: " + HumanMessages.describe(cause);
      LOG.warn(message, cause);
      events.warning(backup, BackupReasons.FAILED, message);
      EtcdBackupStatus failed = copy(previous, backup);
      failed.setInProgress(null);
      return failed(backup, failed, BackupReasons.FAILED, message, Duration.ofSeconds(30));
    }

    EtcdBackupStatus status = copy(previous, backup);
    status.setLastBackup(BackupRecord.of(snapshot.stored(), job.startedAt()));
    status.setLastRevision(snapshot.revision());
    status.setInProgress(null);
    status.setBackups(kept);
    status.setBackupCount(kept.size());
    status.setNextScheduleTime(decision.next().orElse(null));
    String message =
        "snapshot of "
            + backup.getSpec().getClusterName()
            + " at revision "
            + snapshot.revision()
            + " ("
            + snapshot.stored().size()
            + " bytes) stored at "
            + snapshot.stored().location();
    status.setConditions(
        conditions(backup, BackupConditions.succeeded(status.getLastBackup(), decision.next())));
    LOG.info(message);
    events.normal(backup, BackupReasons.SUCCEEDED, message);
    ZonedDateTime now = ZonedDateTime.now(clock).withNano(0);
    return reschedule(StatusRecorder.patchIfChanged(backup, status), decision, now);
  }

  /** Healthy members' endpoints, leader first; empty without a healthy member. */
  private List<URI> endpoints(EtcdCluster cluster) {
    if (cluster == null
        || cluster.getStatus() == null
        || cluster.getStatus().getMembers() == null) {
      return List.of();
    }
    var tls = cluster.getSpec().getTls();
    ClusterRef ref =
        new ClusterRef(
            cluster.getMetadata().getNamespace(),
            cluster.getMetadata().getName(),
            tls != null && tls.getServerSecretName() != null,
            tls != null && tls.getPeerSecretName() != null);
    return cluster.getStatus().getMembers().stream()
        .filter(m -> Boolean.TRUE.equals(m.getHealthy()) && m.getRole() != Members.Role.LEARNER)
        .sorted(Comparator.comparing((Members m) -> m.getRole() != Members.Role.LEADER))
        .map(m -> addressing.clientUrl(ref, m.getName()))
        .toList();
  }

  private static UpdateControl<EtcdBackup> reschedule(
      UpdateControl<EtcdBackup> control, BackupTiming.Decision decision, ZonedDateTime now) {
    if (decision.next().isEmpty()) {
      return control;
    }
    Duration wait = Duration.between(now, decision.next().get());
    return control.rescheduleAfter(
        wait.isNegative() ? Duration.ofSeconds(1) : wait.plusMillis(200));
  }

  /** No snapshot can be taken now: the reason in the conditions, retried after {@code retry}. */
  private UpdateControl<EtcdBackup> blocked(
      EtcdBackup backup, String reason, String message, Duration retry) {
    EtcdBackupStatus previous = backup.getStatus();
    boolean repeated =
        previous != null
            && Conditions.find(previous.getConditions(), BackupConditions.READY)
                .map(c -> reason.equals(c.getReason()))
                .orElse(false);
    if (!repeated && ("InvalidSpec".equals(reason) || "StoreUnavailable".equals(reason))) {
      LOG.warn("{}: {}", reason, message);
      events.warning(backup, reason, message);
    }
    return failed(backup, copy(previous, backup), reason, message, retry);
  }

  /** {@code status} with the failed conditions, written if changed. */
  private UpdateControl<EtcdBackup> failed(
      EtcdBackup backup, EtcdBackupStatus status, String reason, String message, Duration retry) {
    status.setConditions(conditions(backup, BackupConditions.failed(reason, message)));
    var control = StatusRecorder.patchIfChanged(backup, status);
    return retry == null ? control : control.rescheduleAfter(retry);
  }

  /** The desired conditions merged into the stored ones (transition times kept). */
  private List<io.fabric8.kubernetes.api.model.Condition> conditions(
      EtcdBackup backup, List<DesiredCondition> desired) {
    EtcdBackupStatus previous = backup.getStatus();
    return Conditions.merge(
        previous == null ? null : previous.getConditions(),
        desired,
        backup.getMetadata().getGeneration(),
        clock);
  }

  private static EtcdBackupStatus copy(EtcdBackupStatus previous, EtcdBackup backup) {
    EtcdBackupStatus status =
        previous == null ? new EtcdBackupStatus() : Serialization.clone(previous);
    status.setObservedGeneration(backup.getMetadata().getGeneration());
    return status;
  }

  @Override
  public ErrorStatusUpdateControl<EtcdBackup> updateErrorStatus(
      EtcdBackup backup, Context<EtcdBackup> context, Exception e) {
    String message = "reconcile failed, retrying: " + HumanMessages.describe(e);
    LOG.warn(message, e);
    EtcdBackupStatus status = copy(backup.getStatus(), backup);
    status.setConditions(conditions(backup, BackupConditions.failed("ReconcileError", message)));
    return StatusRecorder.patchErrorIfChanged(backup, status);
  }
}
