package dev.bosun.etcd.objects;

import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.VolumeOrigin;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Storage;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The PersistentVolumeClaim of one member: its data outlives its Pod. It is owned by the
 * EtcdCluster (and so garbage-collected with it) only when {@code storage.whenDeleted} is Delete.
 */
public final class MemberVolumes {

  private MemberVolumes() {}

  public static String claimName(String member) {
    return "data-" + member;
  }

  public static PersistentVolumeClaim desired(EtcdCluster cluster, String member) {
    Storage storage = cluster.getSpec().getStorage();
    String size = storage == null || storage.getSize() == null ? "1Gi" : storage.getSize();
    var spec =
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(claimName(member))
            .withNamespace(cluster.getMetadata().getNamespace())
            .withLabels(MemberPods.memberLabels(cluster, member))
            .withOwnerReferences(owners(cluster))
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withNewResources()
            .addToRequests("storage", new Quantity(size))
            .endResources();
    if (storage != null && storage.getStorageClassName() != null) {
      spec.withStorageClassName(storage.getStorageClassName());
    }
    return spec.endSpec().build();
  }

  /** The owner references a member volume should carry under the current deletion policy. */
  public static List<OwnerReference> owners(EtcdCluster cluster) {
    if (!deleteWithCluster(cluster)) {
      return List.of();
    }
    return Owners.of(cluster);
  }

  public static boolean deleteWithCluster(EtcdCluster cluster) {
    Storage s = cluster.getSpec().getStorage();
    return s != null && s.getWhenDeleted() == Storage.WhenDeleted.DELETE;
  }

  public static boolean deleteWhenScaledDown(EtcdCluster cluster) {
    Storage s = cluster.getSpec().getStorage();
    return s == null || s.getWhenScaledDown() != Storage.WhenScaledDown.RETAIN;
  }

  /** The cluster and member the volume's data belongs to, as stamped; empty when not stamped. */
  public static Optional<VolumeOrigin> origin(PersistentVolumeClaim volume) {
    Map<String, String> a = volume.getMetadata().getAnnotations();
    if (a == null) {
      return Optional.empty();
    }
    String cluster = a.get(EtcdOperator.CLUSTER_ID_ANNOTATION);
    String member = a.get(EtcdOperator.MEMBER_ID_ANNOTATION);
    if (cluster == null || cluster.isBlank() || member == null || member.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        new VolumeOrigin(cluster, member, a.getOrDefault(EtcdOperator.PEER_URLS_ANNOTATION, "")));
  }

  /** The annotations that stamp {@code origin} on a volume. */
  public static Map<String, String> stamp(VolumeOrigin origin) {
    return Map.of(
        EtcdOperator.CLUSTER_ID_ANNOTATION,
        origin.clusterId(),
        EtcdOperator.MEMBER_ID_ANNOTATION,
        origin.memberId(),
        EtcdOperator.PEER_URLS_ANNOTATION,
        origin.peerUrls());
  }
}
