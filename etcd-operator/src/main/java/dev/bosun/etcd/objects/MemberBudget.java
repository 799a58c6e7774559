package dev.bosun.etcd.objects;

import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.QuorumGuard;
import dev.bosun.etcd.v1alpha1.EtcdClusterStatus;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;

/**
 * The PodDisruptionBudget's minAvailable: a quorum of the voters that exist, not of {@code
 * spec.size}, which differs while the cluster is resized (size 5 -> 1 with five voters left must
 * still allow only two evictions). The budget selects voter Pods only: a learner's Pod adds nothing
 * to quorum.
 */
public final class MemberBudget {

  private MemberBudget() {}

  /**
   * From etcd's member list when it answered, else from the last recorded members, else (a cluster
   * that never answered) the spec's size.
   */
  public static int minAvailable(EtcdView view, EtcdClusterStatus previous, int size) {
    long voters;
    if (view.reachable()) {
      voters = view.members().stream().filter(ObservedMember::voter).count();
    } else if (previous != null && previous.getMembers() != null) {
      voters =
          previous.getMembers().stream().filter(m -> m.getRole() != Members.Role.LEARNER).count();
    } else {
      voters = size;
    }
    return QuorumGuard.quorum((int) Math.max(voters, 1));
  }
}
