package dev.bosun.etcd.client;

import java.util.List;

/**
 * What one member said about itself through the Maintenance status call.
 *
 * @param memberId the member that answered
 * @param leader the leader it knows of (0 when none)
 * @param version its etcd server version
 * @param learner whether it is a learner
 * @param raftAppliedIndex how far it has applied the log
 * @param errors errors it reports (for example "etcdserver: no leader"); active alarms are listed
 *     here too ("memberID:... alarm:NOSPACE")
 * @param dbSize the size of its backend database in bytes
 */
public record MemberStatus(
    long memberId,
    long leader,
    String version,
    boolean learner,
    long raftAppliedIndex,
    List<String> errors,
    long dbSize) {

  public MemberStatus {
    errors = List.copyOf(errors);
  }

  /** A status without a database size. */
  public MemberStatus(
      long memberId,
      long leader,
      String version,
      boolean learner,
      long raftAppliedIndex,
      List<String> errors) {
    this(memberId, leader, version, learner, raftAppliedIndex, errors, 0);
  }

  /** The errors that are not alarms: what makes a member unhealthy. */
  public List<String> faults() {
    return errors.stream().filter(e -> EtcdAlarm.parse(e).isEmpty()).toList();
  }

  /** The alarms it lists (etcd lists every active alarm of the cluster). */
  public List<EtcdAlarm> alarms() {
    return errors.stream().flatMap(e -> EtcdAlarm.parse(e).stream()).toList();
  }

  /** True when the member said it knows no leader (leader 0, or etcd's "no leader" error). */
  public boolean saysNoLeader() {
    return leader == 0 || errors.stream().anyMatch(e -> e.contains("no leader"));
  }
}
