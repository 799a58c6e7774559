package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.dependent.ControllerOwner;
import dev.bosun.etcd.objects.ClusterServices;
import dev.bosun.etcd.objects.MemberVolumes;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildApplierTest {

  private static EtcdCluster cluster() {
    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(
        new ObjectMetaBuilder().withNamespace("shop").withName("orders").withUid("u1").build());
    cluster.setSpec(new EtcdClusterSpec());
    return cluster;
  }

  @Test
  void aMemberVolumeWithoutOwnerIsTheClustersByItsLabels() {
    EtcdCluster cluster = cluster();
    PersistentVolumeClaim volume = MemberVolumes.desired(cluster, "orders-0");
    volume.getMetadata().setOwnerReferences(List.of());
    assertThat(ChildApplier.owns(cluster, volume)).isTrue();

    volume.getMetadata().setLabels(Map.of());
    assertThat(ChildApplier.owns(cluster, volume)).isFalse();
  }

  @Test
  void anyOtherChildOnlyByTheClustersControllerReference() {
    EtcdCluster cluster = cluster();
    Service service = ClusterServices.peer(cluster);
    assertThat(ChildApplier.owns(cluster, service)).isFalse();

    service.getMetadata().setOwnerReferences(List.of(ControllerOwner.of(cluster)));
    assertThat(ChildApplier.owns(cluster, service)).isTrue();
  }

  @Test
  void aServiceHoldsWhileItsSelectorPortsAndPublishingAreAsAsked() {
    EtcdCluster cluster = cluster();
    Service desired = ClusterServices.client(cluster);
    assertThat(ServiceRepair.holds(ClusterServices.client(cluster), desired)).isTrue();

    Service widened = ClusterServices.client(cluster);
    Map<String, String> selector = new HashMap<>(widened.getSpec().getSelector());
    selector.put("someone", "else");
    widened.getSpec().setSelector(selector);
    widened.getSpec().getPorts().add(new ServicePortBuilder().withName("x").withPort(1).build());
    assertThat(ServiceRepair.holds(widened, desired)).isTrue();

    Service retargeted = ClusterServices.client(cluster);
    retargeted.getSpec().setSelector(Map.of("app", "other"));
    assertThat(ServiceRepair.holds(retargeted, desired)).isFalse();

    Service portless = ClusterServices.client(cluster);
    portless.getSpec().setPorts(List.of());
    assertThat(ServiceRepair.holds(portless, desired)).isFalse();

    Service published = ClusterServices.peer(cluster);
    published.getSpec().setPublishNotReadyAddresses(false);
    assertThat(ServiceRepair.holds(published, ClusterServices.peer(cluster))).isFalse();
  }
}
