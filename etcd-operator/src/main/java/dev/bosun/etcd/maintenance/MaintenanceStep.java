package dev.bosun.etcd.maintenance;

import dev.bosun.etcd.client.EtcdAlarm;
import java.util.List;

/** The one maintenance action due now, if any; chosen by the {@link MaintenancePlanner}. */
public sealed interface MaintenanceStep {

  /** Nothing to do. */
  record None() implements MaintenanceStep {}

  /** A round is due or running, but not every member is healthy: wait, touch nothing. */
  record WaitForHealth(String message) implements MaintenanceStep {}

  /** NOSPACE raised and recovery not opted in: report it, change nothing. */
  record ReportNoSpace(List<EtcdAlarm> alarms) implements MaintenanceStep {
    public ReportNoSpace {
      alarms = List.copyOf(alarms);
    }
  }

  /**
   * NOSPACE raised, recovery opted in: compact through the leader, defragment the members in {@code
   * order} (followers first, leader last), disarm the alarms.
   */
  record RecoverNoSpace(String leader, List<String> order, List<EtcdAlarm> alarms)
      implements MaintenanceStep {
    public RecoverNoSpace {
      order = List.copyOf(order);
      alarms = List.copyOf(alarms);
    }
  }

  /**
   * NOSPACE raised, and the last recovery could not get under the quota: nothing is done until the
   * spec changes (the status keeps saying why).
   */
  record NoSpaceRecoveryStopped(List<EtcdAlarm> alarms) implements MaintenanceStep {
    public NoSpaceRecoveryStopped {
      alarms = List.copyOf(alarms);
    }
  }

  /** Defragment this member next (part of a scheduled round). */
  record Defragment(String member, boolean last) implements MaintenanceStep {}
}
