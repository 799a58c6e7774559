package dev.bosun.etcd.client;

import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.MemberNames;
import dev.bosun.etcd.plan.ObservedMember;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Observes an etcd cluster: the member list, then the Maintenance status of every member in
 * parallel. A member is healthy when it answered in time, reports no errors and names the leader
 * most voters name; serializable reads and the member list still answer without quorum, so they
 * cannot tell a healthy cluster from a broken one.
 */
public final class ClusterObserver {

  private final EtcdMembership etcd;
  private final MemberAddressing addressing;

  public ClusterObserver(EtcdMembership etcd, MemberAddressing addressing) {
    this.etcd = etcd;
    this.addressing = addressing;
  }

  /**
   * Observes the cluster whose members may be any of {@code knownNames}; names this cluster would
   * never give a member (a status that shows an unstarted learner as "(unnamed)") are left out.
   */
  public EtcdView observe(ClusterRef cluster, Collection<String> knownNames) {
    List<String> names = ours(cluster, knownNames);
    List<URI> endpoints = names.stream().map(n -> addressing.clientUrl(cluster, n)).toList();
    return viewOf(cluster, names, etcd.list(endpoints));
  }

  /**
   * Observes the cluster again on a linearizable member list read through {@code via} (the leader):
   * what destructive steps are decided on. Unreachable when {@code via} does not answer.
   */
  public EtcdView confirm(ClusterRef cluster, Collection<String> knownNames, URI via) {
    return viewOf(cluster, ours(cluster, knownNames), etcd.linearizableList(via));
  }

  /** The names that can be members of this cluster, sorted (the order endpoints are asked in). */
  private static List<String> ours(ClusterRef cluster, Collection<String> names) {
    return names.stream().filter(n -> MemberNames.isOurs(cluster.name(), n)).sorted().toList();
  }

  private EtcdView viewOf(
      ClusterRef cluster, Collection<String> knownNames, Optional<EtcdMembership.MemberList> list) {
    if (list.isEmpty()) {
      return EtcdView.unreachable();
    }
    Map<URI, String> byPeerUrl = new HashMap<>();
    for (String name : knownNames) {
      byPeerUrl.put(addressing.peerUrl(cluster, name), name);
    }
    Map<Long, String> names = new LinkedHashMap<>();
    for (EtcdMember m : list.get().members()) {
      names.put(m.id(), resolveName(m, byPeerUrl, url -> ownName(cluster, url)));
    }
    List<URI> statusEndpoints =
        names.values().stream()
            .filter(n -> !n.isEmpty() && byPeerUrl.containsValue(n))
            .map(n -> addressing.clientUrl(cluster, n))
            .toList();
    Map<Long, MemberStatus> statuses =
        etcd.status(statusEndpoints).values().stream()
            .collect(Collectors.toMap(MemberStatus::memberId, Function.identity(), (a, b) -> a));
    return assess(list.get().clusterId(), list.get().members(), names, statuses);
  }

  /**
   * A member's name, or for a learner that has not started yet, the name its peer URL belongs to:
   * one of the known names, else any name of this cluster the addressing gives that peer URL. The
   * second finds a learner the operator added but gave no Pod or volume before it stopped, which
   * nothing but etcd's member list records.
   */
  static String resolveName(
      EtcdMember m, Map<URI, String> byPeerUrl, Function<URI, Optional<String>> addressed) {
    if (!m.name().isEmpty()) {
      return m.name();
    }
    return m.peerUrls().stream()
        .map(url -> Optional.ofNullable(byPeerUrl.get(url)).or(() -> addressed.apply(url)))
        .flatMap(Optional::stream)
        .findFirst()
        .orElse("");
  }

  /** The name of this cluster whose peer URL {@code url} is, if any. */
  private Optional<String> ownName(ClusterRef cluster, URI url) {
    return addressing.memberAt(cluster, url).filter(n -> MemberNames.isOurs(cluster.name(), n));
  }

  /**
   * The health verdict: the common leader is the one most answering voters name; a member is
   * healthy when it answered, reports no errors and names that leader.
   */
  static EtcdView assess(
      long clusterId,
      List<EtcdMember> members,
      Map<Long, String> names,
      Map<Long, MemberStatus> statuses) {
    Map<Long, Long> votes = new HashMap<>();
    for (EtcdMember m : members) {
      MemberStatus s = statuses.get(m.id());
      if (!m.learner() && s != null && s.leader() != 0 && s.faults().isEmpty()) {
        votes.merge(s.leader(), 1L, Long::sum);
      }
    }
    long leader =
        votes.entrySet().stream()
            .max(Map.Entry.comparingByValue())
            .map(Map.Entry::getKey)
            .orElse(0L);
    List<ObservedMember> observed = new ArrayList<>();
    Map<String, String> versions = new HashMap<>();
    Map<String, Long> dbSizes = new HashMap<>();
    Map<String, List<URI>> peerUrls = new HashMap<>();
    for (EtcdMember m : members) {
      MemberStatus s = statuses.get(m.id());
      // An alarm (NOSPACE) is reported as such, not as an unhealthy member: quorum still holds.
      boolean healthy = s != null && s.faults().isEmpty() && leader != 0 && s.leader() == leader;
      String name = names.getOrDefault(m.id(), m.name());
      observed.add(
          new ObservedMember(
              name,
              m.id(),
              m.learner(),
              healthy,
              leader != 0 && m.id() == leader && healthy,
              s == null ? 0 : s.raftAppliedIndex(),
              !healthy && s != null && s.saysNoLeader(),
              !m.name().isEmpty()));
      if (!name.isEmpty()) {
        peerUrls.put(name, List.copyOf(m.peerUrls()));
      }
      if (s != null && !name.isEmpty()) {
        versions.put(name, s.version());
        dbSizes.put(name, s.dbSize());
      }
    }
    Map<String, EtcdAlarm> alarms = new TreeMap<>();
    for (MemberStatus s : statuses.values()) {
      for (EtcdAlarm a : s.alarms()) {
        EtcdAlarm named =
            new EtcdAlarm(a.memberId(), names.getOrDefault(a.memberId(), ""), a.type());
        alarms.putIfAbsent(named.toString(), named);
      }
    }
    return new EtcdView(
        true, clusterId, observed, versions, dbSizes, List.copyOf(alarms.values()), peerUrls);
  }
}
