package dev.bosun.etcd.etcd;

import java.util.List;

/**
 * What one member said about itself through the Maintenance status call.
 *
 * @param memberId the member that answered
 * @param leader the leader it knows of (0 when none)
 * @param version its etcd server version
 * @param learner whether it is a learner
 * @param raftAppliedIndex how far it has applied the log
 * @param errors errors it reports (for example "etcdserver: no leader")
 */
public record MemberStatus(
    long memberId,
    long leader,
    String version,
    boolean learner,
    long raftAppliedIndex,
    List<String> errors) {

  public MemberStatus {
    errors = List.copyOf(errors);
  }
}
