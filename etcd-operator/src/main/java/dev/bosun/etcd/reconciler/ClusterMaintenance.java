package dev.bosun.etcd.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.common.status.Conditions;
import dev.bosun.etcd.client.EtcdMembership;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.maintenance.MaintenancePlanner;
import dev.bosun.etcd.maintenance.MaintenanceStep;
import dev.bosun.etcd.maintenance.NoSpaceQuota;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Defragmentation;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.Optional;

/**
 * Maintenance once the membership planner has nothing to do: NOSPACE recovery when opted in, or the
 * next member of a due defragmentation round ({@link MaintenancePlanner} decides, {@link
 * MaintenanceExecutor} acts).
 */
final class ClusterMaintenance {

  private final MemberAddressing addressing;
  private final EventRecorder events;
  private final Clock clock;

  ClusterMaintenance(MemberAddressing addressing, EventRecorder events, Clock clock) {
    this.addressing = addressing;
    this.events = events;
    this.clock = clock;
  }

  /** Carries out the next maintenance step and records the round in {@code status}; true if any. */
  boolean maintain(
      EtcdCluster cluster,
      ClusterRef ref,
      EtcdMembership etcd,
      EtcdView view,
      Step step,
      EtcdClusterStatus status) {
    Optional<CronSchedule> schedule = schedule(cluster);
    ZonedDateTime now = ZonedDateTime.now(clock).withNano(0);
    ZonedDateTime created = ZonedDateTime.parse(cluster.getMetadata().getCreationTimestamp());
    Defragmentation round =
        status.getDefragmentation() == null
            ? new Defragmentation()
            : Serialization.clone(status.getDefragmentation());
    MaintenanceStep next =
        MaintenancePlanner.plan(input(cluster, view, step, schedule, round, created, now));
    var storage = cluster.getSpec().getStorage();
    MaintenanceExecutor.Result result =
        new MaintenanceExecutor(etcd, addressing, events)
            .execute(
                cluster,
                ref,
                view,
                next,
                round,
                now,
                NoSpaceQuota.of(storage == null ? null : storage.getQuotaBackendBytes()));
    noSpaceStopped(cluster, next, result).ifPresent(m -> sayNoSpaceStopped(status, m));
    round.setNextScheduleTime(
        MaintenancePlanner.next(schedule, MaintenanceRounds.of(round), created).orElse(null));
    boolean any = round.getStartedAt() != null || round.getNextScheduleTime() != null;
    status.setDefragmentation(any ? round : null);
    return result.acted();
  }

  private static Optional<CronSchedule> schedule(EtcdCluster cluster) {
    var spec = cluster.getSpec().getMaintenance();
    return Optional.ofNullable(spec == null ? null : spec.getDefragmentation())
        .map(d -> d.getSchedule())
        .map(CronSchedule::parse);
  }

  private static MaintenancePlanner.Input input(
      EtcdCluster cluster,
      EtcdView view,
      Step step,
      Optional<CronSchedule> schedule,
      Defragmentation round,
      ZonedDateTime created,
      ZonedDateTime now) {
    var spec = cluster.getSpec().getMaintenance();
    return new MaintenancePlanner.Input(
        cluster.getMetadata().getName(),
        step instanceof Step.Converged,
        view.members(),
        view.alarms(),
        spec != null && Boolean.TRUE.equals(spec.getRecoverFromNoSpace()),
        noSpaceRecoveryStopped(cluster),
        schedule,
        MaintenanceRounds.of(round),
        created,
        now);
  }

  /** Why NOSPACE recovery stopped: said now, or said before and still standing. */
  private static Optional<String> noSpaceStopped(
      EtcdCluster cluster, MaintenanceStep next, MaintenanceExecutor.Result result) {
    return result
        .noSpaceStopped()
        .or(
            () ->
                next instanceof MaintenanceStep.NoSpaceRecoveryStopped
                    ? Conditions.find(
                            cluster.getStatus().getConditions(), EtcdClusterStatusBuilder.DEGRADED)
                        .map(Condition::getMessage)
                    : Optional.empty());
  }

  /**
   * True when a NOSPACE recovery already stopped short of the quota for this generation of the
   * spec: it is tried again only after the spec changes (a larger quota, or the user's word).
   */
  private static boolean noSpaceRecoveryStopped(EtcdCluster cluster) {
    return cluster.getStatus() != null
        && Conditions.find(cluster.getStatus().getConditions(), EtcdClusterStatusBuilder.DEGRADED)
            .filter(c -> MaintenanceExecutor.NO_SPACE_STOPPED.equals(c.getReason()))
            .filter(
                c ->
                    Objects.equals(
                        c.getObservedGeneration(), cluster.getMetadata().getGeneration()))
            .isPresent();
  }

  /** Degraded (and Ready, where it said NoSpace) give the reason recovery stopped. */
  private static void sayNoSpaceStopped(EtcdClusterStatus status, String message) {
    for (Condition c : status.getConditions()) {
      boolean degraded = EtcdClusterStatusBuilder.DEGRADED.equals(c.getType());
      boolean ready =
          EtcdClusterStatusBuilder.READY.equals(c.getType())
              && EtcdClusterStatusBuilder.NO_SPACE.equals(c.getReason());
      if (degraded || ready) {
        c.setReason(MaintenanceExecutor.NO_SPACE_STOPPED);
        c.setMessage(message);
      }
    }
  }
}
