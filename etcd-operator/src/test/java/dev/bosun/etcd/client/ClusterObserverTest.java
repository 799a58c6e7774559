package dev.bosun.etcd.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.plan.ObservedMember;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterObserverTest {

  static EtcdMember member(long id, String name, boolean learner) {
    return new EtcdMember(id, name, List.of(URI.create("http://10.0.0." + id + ":2380")), learner);
  }

  static MemberStatus status(long id, long leader, String... errors) {
    return new MemberStatus(id, leader, "3.4.23", false, 100, List.of(errors));
  }

  static ObservedMember find(EtcdView view, long id) {
    return view.members().stream().filter(m -> m.id() == id).findFirst().orElseThrow();
  }

  @Test
  void membersNamingTheCommonLeaderAreHealthyAndTheLeaderIsMarked() {
    var members =
        List.of(member(1, "a-0", false), member(2, "a-1", false), member(3, "a-2", false));
    EtcdView view =
        ClusterObserver.assess(
            7,
            members,
            Map.of(1L, "a-0", 2L, "a-1", 3L, "a-2"),
            Map.of(1L, status(1, 2), 2L, status(2, 2), 3L, status(3, 2)));
    assertThat(view.members()).allMatch(ObservedMember::healthy);
    assertThat(view.leader()).map(ObservedMember::name).hasValue("a-1");
    assertThat(view.clusterId()).isEqualTo(7);
    assertThat(view.versions()).containsEntry("a-0", "3.4.23");
  }

  @Test
  void aSilentMemberOrOneWithErrorsIsUnhealthy() {
    var members =
        List.of(member(1, "a-0", false), member(2, "a-1", false), member(3, "a-2", false));
    EtcdView view =
        ClusterObserver.assess(
            7,
            members,
            Map.of(1L, "a-0", 2L, "a-1", 3L, "a-2"),
            Map.of(1L, status(1, 1), 2L, status(2, 1, "etcdserver: no leader")));
    assertThat(find(view, 1).healthy()).isTrue();
    assertThat(find(view, 2).healthy()).isFalse();
    assertThat(find(view, 3).healthy()).isFalse();
  }

  @Test
  void survivorsWithoutALeaderAreAllUnhealthy() {
    var members =
        List.of(member(1, "a-0", false), member(2, "a-1", false), member(3, "a-2", false));
    EtcdView view =
        ClusterObserver.assess(
            7,
            members,
            Map.of(1L, "a-0", 2L, "a-1", 3L, "a-2"),
            Map.of(1L, status(1, 0, "etcdserver: no leader")));
    assertThat(view.members()).noneMatch(ObservedMember::healthy);
    assertThat(view.leader()).isEmpty();
    // Only the one that answered says it has no leader; silence is no evidence.
    assertThat(find(view, 1).leaderless()).isTrue();
    assertThat(find(view, 2).leaderless()).isFalse();
    assertThat(find(view, 3).leaderless()).isFalse();
  }

  @Test
  void aMemberNamingAnotherLeaderOrAHealthyOneIsNotLeaderless() {
    var members =
        List.of(member(1, "a-0", false), member(2, "a-1", false), member(3, "a-2", false));
    EtcdView view =
        ClusterObserver.assess(
            7,
            members,
            Map.of(1L, "a-0", 2L, "a-1", 3L, "a-2"),
            Map.of(1L, status(1, 1), 2L, status(2, 1), 3L, status(3, 3)));
    assertThat(view.members()).noneMatch(ObservedMember::leaderless);
  }

  @Test
  void aMemberFollowingAStaleLeaderIsUnhealthy() {
    var members =
        List.of(member(1, "a-0", false), member(2, "a-1", false), member(3, "a-2", false));
    EtcdView view =
        ClusterObserver.assess(
            7,
            members,
            Map.of(1L, "a-0", 2L, "a-1", 3L, "a-2"),
            Map.of(1L, status(1, 1), 2L, status(2, 1), 3L, status(3, 3)));
    assertThat(find(view, 3).healthy()).isFalse();
    assertThat(find(view, 1).leader()).isTrue();
  }

  @Test
  void aLearnerThatHasNotStartedIsNamedByItsPeerUrl() {
    EtcdMember unnamed = member(9, "", true);
    assertThat(
            ClusterObserver.resolveName(
                unnamed,
                Map.of(URI.create("http://10.0.0.9:2380"), "a-3"),
                url -> Optional.empty()))
        .isEqualTo("a-3");
    assertThat(ClusterObserver.resolveName(unnamed, Map.of(), url -> Optional.empty())).isEmpty();
  }

  @Test
  void aLearnerNoKnownNameHasIsNamedByTheAddressingOfItsPeerUrl() {
    // The operator stopped between MemberAdd and the learner's volume: nothing but etcd's member
    // list knows the learner, and only by its peer URL.
    var ref = new dev.bosun.etcd.plan.ClusterRef("ns", "a", false, false);
    var addressing = new dev.bosun.etcd.plan.LoopbackAddressing(250);
    URI peer = addressing.peerUrl(ref, "a-7");
    EtcdMember unnamed = new EtcdMember(9, "", List.of(peer), true);
    assertThat(ClusterObserver.resolveName(unnamed, Map.of(), url -> addressing.memberAt(ref, url)))
        .isEqualTo("a-7");
    var other = new dev.bosun.etcd.plan.ClusterRef("ns", "b", false, false);
    assertThat(addressing.memberAt(other, peer)).isEmpty();
    assertThat(addressing.memberAt(ref, URI.create("http://10.0.0.9:2380"))).isEmpty();
  }

  @Test
  void theServiceAddressingNamesAPeerUrlOfItsOwnOnly() {
    var ref = new dev.bosun.etcd.plan.ClusterRef("ns", "a", false, true);
    var addressing = new dev.bosun.etcd.plan.ServiceAddressing();
    assertThat(addressing.memberAt(ref, addressing.peerUrl(ref, "a-12"))).contains("a-12");
    assertThat(addressing.memberAt(ref, URI.create("https://a-1.a-peer.other.svc:2380"))).isEmpty();
    assertThat(addressing.memberAt(ref, URI.create("http://a-1.a-peer.ns.svc:2380"))).isEmpty();
    assertThat(addressing.memberAt(ref, URI.create("https://x.a-peer.ns.svc:2380"))).isEmpty();
  }

  @Test
  void onlyAMemberEtcdNamedHasStarted() {
    EtcdView view =
        ClusterObserver.assess(
            7,
            List.of(member(1, "a-0", false), member(9, "", true)),
            Map.of(1L, "a-0", 9L, "a-1"),
            Map.of(1L, status(1, 1)));
    assertThat(find(view, 1).started()).isTrue();
    assertThat(find(view, 9).started()).isFalse();
    assertThat(find(view, 9).name()).isEqualTo("a-1");
  }

  @Test
  void aNoSpaceAlarmIsReportedAsAnAlarmNotAsAnUnhealthyMember() {
    var members =
        List.of(member(1, "a-0", false), member(2, "a-1", false), member(3, "a-2", false));
    String alarm = "memberID:2 alarm:NOSPACE ";
    EtcdView view =
        ClusterObserver.assess(
            7,
            members,
            Map.of(1L, "a-0", 2L, "a-1", 3L, "a-2"),
            Map.of(
                1L,
                new MemberStatus(1, 1, "3.4.23", false, 100, List.of(alarm), 4096),
                2L,
                new MemberStatus(2, 1, "3.4.23", false, 100, List.of(alarm), 8192),
                3L,
                new MemberStatus(3, 1, "3.4.23", false, 100, List.of(alarm), 4096)));
    assertThat(view.members()).allMatch(ObservedMember::healthy);
    assertThat(view.noSpace()).isTrue();
    assertThat(view.alarms()).containsExactly(new EtcdAlarm(2, "a-1", "NOSPACE"));
    assertThat(view.alarms().get(0)).hasToString("a-1:NOSPACE");
    assertThat(view.dbSizes()).containsEntry("a-1", 8192L);
    assertThat(EtcdAlarm.parse("etcdserver: no leader")).isEmpty();
  }

  @Test
  void aNameNoMemberOfTheClusterCanHaveIsNotAskedFor() {
    // The status shows a learner that never started as "(unnamed)"; the next round read it back
    // as a member name, and the addressing threw on it: every reconcile failed until JOSDK gave up.
    var ref = new dev.bosun.etcd.plan.ClusterRef("ns", "a", false, false);
    try (EtcdClients clients = new EtcdClients()) {
      EtcdView view =
          new ClusterObserver(
                  new EtcdMembership(clients), new dev.bosun.etcd.plan.LoopbackAddressing(250))
              .observe(ref, List.of("(unnamed)", "a-0"));

      assertThat(view.reachable()).isFalse();
      assertThat(clients.endpoints()).containsExactly(URI.create("http://127.0.250.1:2379"));
    }
  }
}
