package dev.bosun.etcd.reconciler;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.Retention;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.FreshPrimary;
import dev.bosun.common.status.StatusRecorder;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.backup.BackupStores;
import dev.bosun.etcd.backup.BackupTiming;
import dev.bosun.etcd.backup.SnapshotTaker;
import dev.bosun.etcd.etcd.EtcdClients;
import dev.bosun.etcd.etcd.EtcdConnections;
import dev.bosun.etcd.etcd.EtcdMembership;
import dev.bosun.etcd.membership.ClusterRef;
import dev.bosun.etcd.membership.MemberAddressing;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupStatus;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdbackupstatus.LastBackup;
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
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
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

  static final String READY = "Ready";
  static final String DEGRADED = "Degraded";
  private static final Logger LOG = LoggerFactory.getLogger(EtcdBackupReconciler.class);
  private static final DateTimeFormatter KEY_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final MemberAddressing addressing;
  private final EventRecorder events;
  private final Clock clock;
  private final Optional<java.nio.file.Path> volumeRoot;
  private final EtcdConnections connections;

  public EtcdBackupReconciler(
      MemberAddressing addressing,
      EventRecorder events,
      Clock clock,
      Optional<java.nio.file.Path> volumeRoot,
      EtcdConnections connections) {
    this.connections = connections;
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
    EtcdBackup backup = live.get();
    EtcdBackupStatus previous = backup.getStatus();
    Optional<CronSchedule> schedule;
    BackupStore store;
    try {
      schedule = Optional.ofNullable(backup.getSpec().getSchedule()).map(CronSchedule::parse);
      store = new BackupStores(context.getClient(), volumeRoot).open(backup);
    } catch (IllegalArgumentException e) {
      return blocked(backup, "InvalidSpec", "invalid spec: " + e.getMessage(), null);
    }

    ZonedDateTime now = ZonedDateTime.now(clock).withNano(0);
    ZonedDateTime created = ZonedDateTime.parse(backup.getMetadata().getCreationTimestamp());
    Optional<ZonedDateTime> last =
        Optional.ofNullable(previous).map(EtcdBackupStatus::getLastBackup).map(LastBackup::getTime);
    BackupTiming.Decision decision = BackupTiming.decide(schedule, last, created, now);
    if (!decision.due()) {
      EtcdBackupStatus status = copy(previous, backup);
      status.setNextScheduleTime(decision.next().orElse(null));
      if (previous == null || previous.getConditions() == null) {
        status.setConditions(
            conditions(
                backup,
                previous,
                DesiredCondition.isFalse(
                    READY,
                    "Scheduled",
                    "the first snapshot is taken at "
                        + decision.next().map(Object::toString).orElse("-")),
                false,
                ""));
      }
      return reschedule(StatusRecorder.patchIfChanged(backup, status), decision, now);
    }

    String ns = backup.getMetadata().getNamespace();
    EtcdCluster cluster =
        context
            .getClient()
            .resources(EtcdCluster.class)
            .inNamespace(ns)
            .withName(backup.getSpec().getClusterName())
            .get();
    List<URI> endpoints = endpoints(cluster);
    if (endpoints.isEmpty()) {
      String message =
          cluster == null
              ? "EtcdCluster " + backup.getSpec().getClusterName() + " does not exist"
              : "EtcdCluster " + backup.getSpec().getClusterName() + " has no healthy member";
      return blocked(backup, "WaitingForCluster", message, Duration.ofSeconds(10));
    }

    String key = BackupStores.prefix(backup) + KEY_TIME.format(now) + ".db";
    EtcdClients clients;
    try {
      clients = connections.of(context.getClient(), cluster);
    } catch (IllegalArgumentException e) {
      return blocked(backup, "WaitingForCluster", e.getMessage(), Duration.ofSeconds(30));
    }
    SnapshotTaker.Snapshot snapshot;
    List<StoredObject> kept;
    try {
      snapshot = new SnapshotTaker(new EtcdMembership(clients)).take(endpoints, store, key);
      List<StoredObject> existing = store.list(BackupStores.prefix(backup));
      List<StoredObject> expired = Retention.toDelete(existing, backup.getSpec().getKeep());
      for (StoredObject old : expired) {
        store.delete(old.key());
      }
      kept = new ArrayList<>(existing);
      kept.removeAll(expired);
    } catch (IOException | UncheckedIOException e) {
      String message = "snapshot failed, retrying: " + e.getMessage();
      LOG.warn(message);
      events.warning(backup, "BackupFailed", message);
      return blocked(backup, "BackupFailed", message, Duration.ofSeconds(30));
    }

    LastBackup lastBackup = new LastBackup();
    lastBackup.setKey(snapshot.stored().key());
    lastBackup.setTime(now);
    lastBackup.setRevision(snapshot.revision());
    lastBackup.setSize(snapshot.stored().size());
    lastBackup.setLocation(snapshot.stored().location());
    EtcdBackupStatus status = copy(previous, backup);
    status.setLastBackup(lastBackup);
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
        conditions(
            backup,
            previous,
            DesiredCondition.isTrue(READY, "BackupSucceeded", message),
            false,
            ""));
    LOG.info(message);
    events.normal(backup, "BackupSucceeded", message);
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

  private UpdateControl<EtcdBackup> blocked(
      EtcdBackup backup, String reason, String message, Duration retry) {
    EtcdBackupStatus previous = backup.getStatus();
    boolean repeated =
        previous != null
            && Conditions.find(previous.getConditions(), READY)
                .map(c -> reason.equals(c.getReason()))
                .orElse(false);
    if (!repeated && "InvalidSpec".equals(reason)) {
      LOG.warn("{}: {}", reason, message);
      events.warning(backup, reason, message);
    }
    EtcdBackupStatus status = copy(previous, backup);
    boolean degraded =
        !"InvalidSpec".equals(reason) && previous != null && previous.getLastBackup() != null;
    status.setConditions(
        conditions(
            backup, previous, DesiredCondition.isFalse(READY, reason, message), degraded, message));
    var control = StatusRecorder.patchIfChanged(backup, status);
    return retry == null ? control : control.rescheduleAfter(retry);
  }

  private List<io.fabric8.kubernetes.api.model.Condition> conditions(
      EtcdBackup backup,
      EtcdBackupStatus previous,
      DesiredCondition ready,
      boolean degraded,
      String why) {
    DesiredCondition d =
        degraded
            ? DesiredCondition.isTrue(DEGRADED, "SnapshotsFailing", why)
            : DesiredCondition.isFalse(
                DEGRADED, "SnapshotsWorking", "the last attempt did not fail");
    return Conditions.merge(
        previous == null ? null : previous.getConditions(),
        List.of(ready, d),
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
    String message = "reconcile failed, retrying: " + e.getMessage();
    LOG.warn(message, e);
    EtcdBackupStatus status = copy(backup.getStatus(), backup);
    status.setConditions(
        conditions(
            backup,
            backup.getStatus(),
            DesiredCondition.isFalse(READY, "ReconcileError", message),
            false,
            ""));
    return StatusRecorder.patchErrorIfChanged(backup, status);
  }
}
