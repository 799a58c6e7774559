package dev.bosun.etcd.maintenance;

import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.etcd.client.EtcdAlarm;
import dev.bosun.etcd.plan.MemberNames;
import dev.bosun.etcd.plan.ObservedMember;
import java.time.ZonedDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Chooses the maintenance due now, a pure function like the membership planner. NOSPACE comes first
 * (writes fail until it is cleared); then scheduled defragmentation: one member per step, followers
 * first and the leader last (defragmenting blocks a member, and the leader's pause would stall
 * every write), and only while the membership planner has nothing to do and every member is
 * healthy.
 */
public final class MaintenancePlanner {

  private MaintenancePlanner() {}

  /**
   * @param cluster the cluster's name
   * @param converged whether the membership planner found nothing to change
   * @param members etcd's members with their health
   * @param alarms active alarms
   * @param recoverFromNoSpace whether the user opted in to NOSPACE recovery
   * @param noSpaceRecoveryStopped whether a recovery for this spec already stopped short of the
   *     quota
   * @param schedule the defragmentation schedule, if any
   * @param round the current or last round
   * @param created when the cluster was created (the first round is due at the first schedule time
   *     after it)
   * @param now the time of the observation
   */
  public record Input(
      String cluster,
      boolean converged,
      List<ObservedMember> members,
      List<EtcdAlarm> alarms,
      boolean recoverFromNoSpace,
      boolean noSpaceRecoveryStopped,
      Optional<CronSchedule> schedule,
      DefragRound round,
      ZonedDateTime created,
      ZonedDateTime now) {}

  public static MaintenanceStep plan(Input in) {
    boolean healthy =
        in.converged()
            && !in.members().isEmpty()
            && in.members().stream().allMatch(m -> m.voter() && m.healthy());
    List<EtcdAlarm> noSpace =
        in.alarms().stream().filter(a -> EtcdAlarm.NOSPACE.equals(a.type())).toList();
    if (!noSpace.isEmpty()) {
      if (!in.recoverFromNoSpace()) {
        return new MaintenanceStep.ReportNoSpace(noSpace);
      }
      if (in.noSpaceRecoveryStopped()) {
        // Compacting and defragmenting again would pause every member for nothing.
        return new MaintenanceStep.NoSpaceRecoveryStopped(noSpace);
      }
      if (!healthy) {
        return new MaintenanceStep.WaitForHealth(
            "NOSPACE is recovered once every member is healthy");
      }
      List<String> order = order(in.cluster(), in.members());
      return new MaintenanceStep.RecoverNoSpace(order.get(order.size() - 1), order, noSpace);
    }
    if (!in.round().running() && !due(in)) {
      return new MaintenanceStep.None();
    }
    if (!healthy) {
      return new MaintenanceStep.WaitForHealth(
          "defragmentation continues once every member is healthy and nothing else is changing");
    }
    List<String> left =
        order(in.cluster(), in.members()).stream()
            .filter(n -> !in.round().running() || !in.round().done().contains(n))
            .toList();
    if (left.isEmpty()) {
      // Every member was done (the last one's step may not have been recorded as the last).
      return new MaintenanceStep.None();
    }
    return new MaintenanceStep.Defragment(left.get(0), left.size() == 1);
  }

  /** When the next round is due (empty: no schedule). */
  public static Optional<ZonedDateTime> next(
      Optional<CronSchedule> schedule, DefragRound round, ZonedDateTime created) {
    return schedule.map(s -> s.next(round.startedAt() == null ? created : round.startedAt()));
  }

  private static boolean due(Input in) {
    return next(in.schedule(), in.round(), in.created())
        .map(t -> !t.isAfter(in.now()))
        .orElse(false);
  }

  /** Followers in index order, the leader last. */
  static List<String> order(String cluster, List<ObservedMember> members) {
    return members.stream()
        .sorted(
            Comparator.comparing(ObservedMember::leader)
                .thenComparing(m -> MemberNames.index(cluster, m.name()).orElse(Integer.MAX_VALUE)))
        .map(ObservedMember::name)
        .toList();
  }
}
