package dev.bosun.etcd.reconciler;

import dev.bosun.etcd.maintenance.DefragRound;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Defragmentation;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.defragmentation.Members;
import java.util.List;

/** Reads the defragmentation round the status records into the planner's terms. */
final class MaintenanceRounds {

  private MaintenanceRounds() {}

  static DefragRound of(Defragmentation status) {
    if (status == null) {
      return DefragRound.none();
    }
    List<String> done =
        status.getMembers() == null
            ? List.of()
            : status.getMembers().stream().map(Members::getName).toList();
    return new DefragRound(status.getStartedAt(), status.getFinishedAt(), done);
  }
}
