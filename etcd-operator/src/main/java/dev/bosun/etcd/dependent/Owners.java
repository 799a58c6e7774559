package dev.bosun.etcd.dependent;

import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.List;

/** The controller owner reference children carry, so garbage collection removes them. */
public final class Owners {

  private Owners() {}

  public static List<OwnerReference> of(EtcdCluster cluster) {
    return List.of(
        new OwnerReferenceBuilder()
            .withApiVersion(cluster.getApiVersion())
            .withKind(cluster.getKind())
            .withName(cluster.getMetadata().getName())
            .withUid(cluster.getMetadata().getUid())
            .withController(true)
            .withBlockOwnerDeletion(true)
            .build());
  }
}
