package dev.bosun.etcd.plan;

import java.util.List;

/**
 * Decides whether a membership change keeps at least a quorum of healthy voters, before and after.
 * Every change the planner proposes passes through here: no step may leave the cluster unable to
 * commit.
 */
public final class QuorumGuard {

  private QuorumGuard() {}

  /** The majority of {@code voters}. */
  public static int quorum(int voters) {
    return voters / 2 + 1;
  }

  static long voters(List<ObservedMember> members) {
    return members.stream().filter(ObservedMember::voter).count();
  }

  static long healthyVoters(List<ObservedMember> members) {
    return members.stream().filter(m -> m.voter() && m.healthy()).count();
  }

  /** True when a majority of the voters is healthy now. */
  public static boolean hasQuorum(List<ObservedMember> members) {
    long voters = voters(members);
    return voters > 0 && healthyVoters(members) >= quorum((int) voters);
  }

  /**
   * True when removing {@code member} leaves a quorum of healthy voters among the remaining ones.
   * Removing a learner never changes the quorum.
   */
  public static boolean canRemove(List<ObservedMember> members, ObservedMember member) {
    if (!hasQuorum(members)) {
      return false;
    }
    if (member.learner()) {
      return true;
    }
    long votersAfter = voters(members) - 1;
    long healthyAfter = healthyVoters(members) - (member.healthy() ? 1 : 0);
    return votersAfter >= 1 && healthyAfter >= quorum((int) votersAfter);
  }

  /**
   * True when promoting the learner keeps a quorum: the new voter counts only if it is healthy, and
   * the quorum grows with the voter count.
   */
  public static boolean canPromote(List<ObservedMember> members, ObservedMember learner) {
    if (!hasQuorum(members) || !learner.learner() || !learner.healthy()) {
      return false;
    }
    long votersAfter = voters(members) + 1;
    return healthyVoters(members) + 1 >= quorum((int) votersAfter);
  }

  /**
   * True when a learner may be added: etcd itself refuses while any voter is down, and a learner
   * added then could not catch up reliably.
   */
  public static boolean canAddLearner(List<ObservedMember> members) {
    return hasQuorum(members) && healthyVoters(members) == voters(members);
  }

  /**
   * True when {@code member} may be taken down for a while (restart for an upgrade): every voter is
   * healthy and the others still form a quorum of the unchanged voter count. A one-member cluster
   * can only be upgraded with a short outage: the user chose no redundancy, and no data is at risk.
   */
  public static boolean canRestart(List<ObservedMember> members, ObservedMember member) {
    long voters = voters(members);
    long healthy = healthyVoters(members);
    if (healthy != voters) {
      return false;
    }
    if (voters == 1) {
      return true;
    }
    long healthyDuring = healthy - (member.voter() ? 1 : 0);
    return healthyDuring >= quorum((int) voters);
  }
}
