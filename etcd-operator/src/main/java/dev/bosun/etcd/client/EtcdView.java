package dev.bosun.etcd.client;

import dev.bosun.etcd.plan.ObservedMember;
import java.net.URI;
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
 * @param dbSizes the database size each answering member reported, by member name
 * @param alarms the active alarms (NOSPACE, CORRUPT), each once
 * @param peerUrls the peer URLs etcd's member list holds for each named member
 */
public record EtcdView(
    boolean reachable,
    long clusterId,
    List<ObservedMember> members,
    Map<String, String> versions,
    Map<String, Long> dbSizes,
    List<EtcdAlarm> alarms,
    Map<String, List<URI>> peerUrls) {

  public EtcdView {
    members = List.copyOf(members);
    versions = Map.copyOf(versions);
    dbSizes = Map.copyOf(dbSizes);
    alarms = List.copyOf(alarms);
    peerUrls = Map.copyOf(peerUrls);
  }

  /** A view without peer URLs. */
  public EtcdView(
      boolean reachable,
      long clusterId,
      List<ObservedMember> members,
      Map<String, String> versions,
      Map<String, Long> dbSizes,
      List<EtcdAlarm> alarms) {
    this(reachable, clusterId, members, versions, dbSizes, alarms, Map.of());
  }

  /** A view without sizes and alarms. */
  public EtcdView(
      boolean reachable,
      long clusterId,
      List<ObservedMember> members,
      Map<String, String> versions) {
    this(reachable, clusterId, members, versions, Map.of(), List.of());
  }

  public static EtcdView unreachable() {
    return new EtcdView(false, 0, List.of(), Map.of());
  }

  /** True when some member raised the NOSPACE alarm. */
  public boolean noSpace() {
    return alarms.stream().anyMatch(a -> EtcdAlarm.NOSPACE.equals(a.type()));
  }

  public Optional<ObservedMember> leader() {
    return members.stream().filter(ObservedMember::leader).findFirst();
  }
}
