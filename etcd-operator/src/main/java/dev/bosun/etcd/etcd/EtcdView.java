package dev.bosun.etcd.etcd;

import dev.bosun.etcd.membership.ObservedMember;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster as etcd showed it in one observation.
 *
 * @param reachable whether any member answered the member list
 * @param clusterId the cluster's ID (0 when unreachable)
 * @param members the members with their names resolved and their health
 * @param versions the server version each answering member reported, by member name
 */
public record EtcdView(
    boolean reachable, long clusterId, List<ObservedMember> members, Map<String, String> versions) {

  public EtcdView {
    members = List.copyOf(members);
    versions = Map.copyOf(versions);
  }

  public static EtcdView unreachable() {
    return new EtcdView(false, 0, List.of(), Map.of());
  }

  public Optional<ObservedMember> leader() {
    return members.stream().filter(ObservedMember::leader).findFirst();
  }
}
