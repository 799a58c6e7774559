package dev.bosun.etcd.objects;

import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Storage;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;

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
}
