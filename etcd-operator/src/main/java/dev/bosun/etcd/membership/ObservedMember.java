package dev.bosun.etcd.membership;

import java.util.Objects;

/**
 * One member as etcd reports it, joined with what its Maintenance status said.
 *
 * @param name the member's name; a learner that has not started yet reports none, the observer
 *     fills it in from its peer URL (empty when the peer URL is not one of ours)
 * @param id etcd's member ID
 * @param learner whether it is a non-voting learner
 * @param healthy whether its status answered in time, without errors, naming the common leader
 * @param leader whether it is the leader
 * @param raftIndex its applied raft index (0 when unknown)
 * @param leaderless whether it answered the operator and said it has no leader: positive evidence
 *     of lost quorum, unlike a member that did not answer at all
 */
public record ObservedMember(
    String name,
    long id,
    boolean learner,
    boolean healthy,
    boolean leader,
    long raftIndex,
    boolean leaderless) {

  public ObservedMember {
    name = Objects.requireNonNullElse(name, "");
  }

  /** A member that did not say it has no leader. */
  public ObservedMember(
      String name, long id, boolean learner, boolean healthy, boolean leader, long raftIndex) {
    this(name, id, learner, healthy, leader, raftIndex, false);
  }

  public boolean voter() {
    return !learner;
  }

  /** The ID as etcdctl prints it. */
  public String hexId() {
    return Long.toHexString(id);
  }
}
