package dev.bosun.etcd.plan;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the planner looks at: etcd's view of the membership and Kubernetes' view of the
 * members' Pods and volumes, plus what the spec asks for.
 *
 * @param cluster the EtcdCluster's name (member names are derived from it)
 * @param reachable whether any member answered the member list
 * @param members etcd's members with their health (empty when unreachable)
 * @param resources Pods and volumes by member name
 * @param retained names of volumes kept after a scale-down (their index is never reused)
 * @param bootstrapped whether the cluster ever ran (a cluster ID was recorded)
 * @param size the desired number of voters
 * @param version the desired etcd version
 * @param now the time of the observation (deadlines are measured against it)
 */
public record Observation(
    String cluster,
    boolean reachable,
    List<ObservedMember> members,
    Map<String, MemberResources> resources,
    Set<String> retained,
    boolean bootstrapped,
    int size,
    String version,
    Instant now) {

  public Observation {
    members = List.copyOf(members);
    resources = Map.copyOf(resources);
    retained = Set.copyOf(retained);
  }

  /** An observation whose time does not matter (no deadline can have passed). */
  public Observation(
      String cluster,
      boolean reachable,
      List<ObservedMember> members,
      Map<String, MemberResources> resources,
      Set<String> retained,
      boolean bootstrapped,
      int size,
      String version) {
    this(
        cluster, reachable, members, resources, retained, bootstrapped, size, version, Instant.MIN);
  }
}
