package dev.bosun.etcd.plan;

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
 * @param started whether etcd reports the member's own name, which it learns only once the member
 *     started: a learner that never started holds no data
 */
public record ObservedMember(
    String name,
    long id,
    boolean learner,
    boolean healthy,
    boolean leader,
    long raftIndex,
    boolean leaderless,
    boolean started) {

  public ObservedMember {
    name = Objects.requireNonNullElse(name, "");
  }

  /** A started member that did not say it has no leader. */
  public ObservedMember(
      String name, long id, boolean learner, boolean healthy, boolean leader, long raftIndex) {
    this(name, id, learner, healthy, leader, raftIndex, false, true);
  }

  public boolean voter() {
    return !learner;
  }

  /** The ID as etcdctl prints it. */
  public String hexId() {
    return Long.toHexString(id);
  }
}
