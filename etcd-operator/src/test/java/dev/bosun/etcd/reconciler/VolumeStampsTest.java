package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.client.EtcdView;
import dev.bosun.etcd.objects.MemberVolumes;
import dev.bosun.etcd.plan.ObservedMember;
import dev.bosun.etcd.plan.VolumeOrigin;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VolumeStampsTest {

  private static final long CLUSTER = 0xabcL;

  private static ObservedMember healthy(String name, long id) {
    return new ObservedMember(name, id, false, true, false, 1000);
  }

  private static PersistentVolumeClaim stamped(String member, VolumeOrigin origin) {
    PersistentVolumeClaim v = MemberInventoryTest.volume(member, false);
    v.getMetadata().setAnnotations(new HashMap<>(MemberVolumes.stamp(origin)));
    return v;
  }

  private static MemberInventory volumes(Map<String, PersistentVolumeClaim> volumes) {
    return new MemberInventory(Map.of(), volumes, Set.of(), true);
  }

  private static EtcdView view(ObservedMember... members) {
    return new EtcdView(true, CLUSTER, List.of(members), Map.of());
  }

  @Test
  void aHealthyMembersVolumeIsStampedWithItsClusterAndMemberInHex() {
    var missing =
        VolumeStamps.missing(
            view(healthy("c-0", 0x10), healthy("c-1", 0x11)),
            volumes(
                Map.of(
                    "c-0", MemberInventoryTest.volume("c-0", false),
                    "c-1", MemberInventoryTest.volume("c-1", false))));
    assertThat(missing)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("c-0", new VolumeOrigin("abc", "10"), "c-1", new VolumeOrigin("abc", "11")));
  }

  @Test
  void aStampedVolumeIsLeftAlone() {
    // A converged cluster writes nothing.
    assertThat(
            VolumeStamps.missing(
                view(healthy("c-0", 0x10)),
                volumes(Map.of("c-0", stamped("c-0", new VolumeOrigin("abc", "10"))))))
        .isEmpty();
  }

  @Test
  void aStampOfAnotherClusterIsReplaced() {
    // A restore started a new cluster on the name: the data on the volume is the new cluster's.
    assertThat(
            VolumeStamps.missing(
                view(healthy("c-0", 0x10)),
                volumes(Map.of("c-0", stamped("c-0", new VolumeOrigin("old", "10"))))))
        .containsExactly(Map.entry("c-0", new VolumeOrigin("abc", "10")));
  }

  @Test
  void onlyHealthyStartedMembersOnLiveVolumesAreStamped() {
    // Unhealthy: its Pod may run on a replaced, empty volume. Unstarted: it holds no data yet.
    var members =
        view(
            new ObservedMember("c-0", 0x10, false, false, false, 1000),
            new ObservedMember("c-1", 0x11, true, false, false, 0, false, false),
            healthy("c-2", 0x12),
            healthy("c-3", 0x13),
            healthy("", 0x14));
    var inventory =
        volumes(
            Map.of(
                "c-0", MemberInventoryTest.volume("c-0", false),
                "c-1", MemberInventoryTest.volume("c-1", false),
                "c-2", MemberInventoryTest.volume("c-2", true)));
    assertThat(VolumeStamps.missing(members, inventory)).isEmpty();
  }

  @Test
  void nothingIsStampedWhileEtcdDoesNotAnswer() {
    assertThat(
            VolumeStamps.missing(
                EtcdView.unreachable(),
                volumes(Map.of("c-0", MemberInventoryTest.volume("c-0", false)))))
        .isEmpty();
  }

  @Test
  void anOriginNeedsBothAnnotations() {
    PersistentVolumeClaim v = MemberInventoryTest.volume("c-0", false);
    assertThat(MemberVolumes.origin(v)).isEmpty();
    v.getMetadata().setAnnotations(Map.of(EtcdOperator.CLUSTER_ID_ANNOTATION, "abc"));
    assertThat(MemberVolumes.origin(v)).isEmpty();
    v.getMetadata()
        .setAnnotations(
            Map.of(
                EtcdOperator.CLUSTER_ID_ANNOTATION, "abc", EtcdOperator.MEMBER_ID_ANNOTATION, " "));
    assertThat(MemberVolumes.origin(v)).isEmpty();
  }

  @Test
  void theInventoryCarriesTheStampToThePlanner() {
    var inventory =
        volumes(
            Map.of(
                "c-0", stamped("c-0", new VolumeOrigin("abc", "10")),
                "c-1", MemberInventoryTest.volume("c-1", false)));
    assertThat(inventory.resources().get("c-0").origin()).isEqualTo(new VolumeOrigin("abc", "10"));
    assertThat(inventory.resources().get("c-1").origin()).isNull();
  }
}
