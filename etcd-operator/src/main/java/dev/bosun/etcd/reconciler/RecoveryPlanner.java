package dev.bosun.etcd.reconciler;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The next step of a disaster recovery whose intent is already recorded ({@code
 * status.recoveringFrom}): a pure function of what Kubernetes holds, so an operator restarted at
 * any point picks up where the last one stopped. The old cluster is taken apart in an order where
 * every boundary is safe: its volumes are kept first (labelled retained, so nothing can garbage-
 * collect them), then its Pods are deleted, and only once they are gone is the old cluster
 * forgotten (its ID cleared), which is what lets the membership planner start the restored first
 * member.
 */
final class RecoveryPlanner {

  private RecoveryPlanner() {}

  /**
   * What the recovery sees.
   *
   * @param oldClusterForgotten whether the old cluster's ID is already cleared
   * @param volumes members whose volume is not yet retained
   * @param pods members with a Pod not yet being deleted
   * @param terminating members whose Pod is being deleted
   */
  record Input(
      boolean oldClusterForgotten, Set<String> volumes, Set<String> pods, Set<String> terminating) {
    Input {
      volumes = Set.copyOf(volumes);
      pods = Set.copyOf(pods);
      terminating = Set.copyOf(terminating);
    }
  }

  /** One step of a recovery, with the sentence a person reads. */
  sealed interface RecoveryStep {
    String message();
  }

  /** Keep the old members' volumes: they hold every write made after the snapshot. */
  record RetainVolumes(List<String> members) implements RecoveryStep {
    public String message() {
      return "keeping the volumes of " + String.join(", ", members) + " before their Pods stop";
    }
  }

  /** Delete the old members' Pods (their volumes are already kept). */
  record StopPods(List<String> members) implements RecoveryStep {
    public String message() {
      return "stopping the old members " + String.join(", ", members);
    }
  }

  /** Old Pods are still terminating: the new first member must not meet them. */
  record WaitForPods(List<String> members) implements RecoveryStep {
    public String message() {
      return "waiting for the old Pods of " + String.join(", ", members) + " to be gone";
    }
  }

  /** Every old member is stopped and kept: clear the old cluster's ID and members. */
  record ForgetOldCluster() implements RecoveryStep {
    public String message() {
      return "every old member is stopped and its volume kept; the restored cluster starts next";
    }
  }

  /** The old cluster is forgotten: the membership planner starts the restored first member. */
  record RestoreFirstMember() implements RecoveryStep {
    public String message() {
      return "the first member of the new cluster starts from the snapshot; the others join it";
    }
  }

  static RecoveryStep plan(Input in) {
    if (in.oldClusterForgotten()) {
      return new RestoreFirstMember();
    }
    if (!in.volumes().isEmpty()) {
      return new RetainVolumes(sorted(in.volumes()));
    }
    if (!in.pods().isEmpty()) {
      return new StopPods(sorted(in.pods()));
    }
    if (!in.terminating().isEmpty()) {
      return new WaitForPods(sorted(in.terminating()));
    }
    return new ForgetOldCluster();
  }

  private static List<String> sorted(Set<String> names) {
    return List.copyOf(new TreeSet<>(names));
  }
}
