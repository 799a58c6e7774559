package dev.bosun.etcd.objects;

import dev.bosun.common.dependent.ControllerOwner;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.List;

/** The controller owner reference children carry, so garbage collection removes them. */
public final class Owners {

  private Owners() {}

  public static List<OwnerReference> of(EtcdCluster cluster) {
    return List.of(ControllerOwner.of(cluster));
  }
}
