package dev.bosun.etcd.reconciler;

import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.MemberResources;
import dev.bosun.etcd.plan.Step;
import dev.bosun.etcd.plan.VolumeOrigin;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses to resume kept volumes whose members etcd knows under peer URLs the re-created spec no
 * longer gives them (peer TLS switched on or off): etcd keeps its members' peer URLs in its data,
 * so the members would start and never reach each other. Nothing is started; the person creates the
 * EtcdCluster again as it was.
 */
final class ResumedPeerUrls {

  private ResumedPeerUrls() {}

  /** {@code planned}, or a wait when its resume would start members under other peer URLs. */
  static Planned check(ClusterRef ref, MemberAddressing addressing, Planned planned) {
    if (!(planned.step() instanceof Step.ResumeCluster resume)) {
      return planned;
    }
    List<String> changed = new ArrayList<>();
    for (String member : resume.members()) {
      MemberResources r = planned.inventory().resources().get(member);
      VolumeOrigin origin = r == null ? null : r.origin();
      if (origin == null || origin.peerUrls().isEmpty()) {
        continue;
      }
      String now = addressing.peerUrl(ref, member).toString();
      if (!List.of(origin.peerUrls().split(",")).contains(now)) {
        changed.add(member + " was " + origin.peerUrls() + ", now " + now);
      }
    }
    if (changed.isEmpty()) {
      return planned;
    }
    return planned.withStep(
        new Step.Wait(
            "PeerAddressChanged",
            "etcd knows the kept volumes' members under peer URLs this spec does not give them ("
                + String.join("; ", changed)
                + "): they could not reach each other, so none is started; create the EtcdCluster"
                + " again with the peer TLS settings (spec.tls) it had"));
  }
}
