package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.ServiceAddressing;
import dev.bosun.etcd.plan.Step;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResumedPeerUrlsTest {

  private static final ServiceAddressing ADDRESSING = new ServiceAddressing();
  private static final ClusterRef PLAIN = new ClusterRef("ns", "c", false, false);
  private static final ClusterRef PEER_TLS = new ClusterRef("ns", "c", false, true);

  /** A kept volume stamped with {@code peerUrls} (none when null). */
  private static PersistentVolumeClaim kept(String member, String peerUrls) {
    PersistentVolumeClaim v = MemberInventoryTest.volume(member, false);
    Map<String, String> a = new HashMap<>();
    a.put(EtcdOperator.CLUSTER_ID_ANNOTATION, "abc");
    a.put(EtcdOperator.MEMBER_ID_ANNOTATION, "m-" + member);
    if (peerUrls != null) {
      a.put(EtcdOperator.PEER_URLS_ANNOTATION, peerUrls);
    }
    v.getMetadata().setAnnotations(a);
    return v;
  }

  private static Planned resuming(Map<String, PersistentVolumeClaim> volumes) {
    return new Planned(
        new Step.ResumeCluster(List.copyOf(volumes.keySet()), "abc", List.of()),
        EtcdView.unreachable(),
        new MemberInventory(Map.of(), volumes, Set.of(), false),
        Optional.empty());
  }

  @Test
  void membersKnownUnderTheSamePeerUrlsAreResumed() {
    Planned planned =
        resuming(
            Map.of(
                "c-0", kept("c-0", "http://c-0.c-peer.ns.svc:2380"),
                "c-1", kept("c-1", "http://c-1.c-peer.ns.svc:2380")));
    assertThat(ResumedPeerUrls.check(PLAIN, ADDRESSING, planned)).isSameAs(planned);
  }

  @Test
  void peerTlsSwitchedOnIsRefusedNamingEachMember() {
    Planned planned =
        resuming(
            Map.of(
                "c-0", kept("c-0", "http://c-0.c-peer.ns.svc:2380"),
                "c-1", kept("c-1", "https://c-1.c-peer.ns.svc:2380")));
    Step step = ResumedPeerUrls.check(PEER_TLS, ADDRESSING, planned).step();
    assertThat(step.reason()).isEqualTo("PeerAddressChanged");
    assertThat(step.changes()).isFalse();
    assertThat(step.message())
        .contains(
            "c-0 was http://c-0.c-peer.ns.svc:2380, now https://c-0.c-peer.ns.svc:2380",
            "none is started",
            "spec.tls")
        .doesNotContain("c-1 was");
  }

  @Test
  void aStampWithoutPeerUrlsOrAnotherStepIsLeftAlone() {
    Planned unknown = resuming(Map.of("c-0", kept("c-0", null)));
    assertThat(ResumedPeerUrls.check(PEER_TLS, ADDRESSING, unknown)).isSameAs(unknown);
    Planned bootstrap = unknown.withStep(new Step.Bootstrap("c-0"));
    assertThat(ResumedPeerUrls.check(PEER_TLS, ADDRESSING, bootstrap)).isSameAs(bootstrap);
  }

  @Test
  void aStampRecordsThePeerUrlsEtcdHolds() {
    var view =
        new EtcdView(
            true,
            0xabc,
            List.of(new dev.bosun.etcd.plan.ObservedMember("c-0", 0x10, false, true, true, 9)),
            Map.of(),
            Map.of(),
            List.of(),
            Map.of(
                "c-0",
                List.of(
                    java.net.URI.create("http://a:2380"), java.net.URI.create("http://b:2380"))));
    var inventory =
        new MemberInventory(
            Map.of(), Map.of("c-0", MemberInventoryTest.volume("c-0", false)), Set.of(), true);
    assertThat(VolumeStamps.missing(view, inventory).get("c-0").peerUrls())
        .isEqualTo("http://a:2380,http://b:2380");
  }
}
