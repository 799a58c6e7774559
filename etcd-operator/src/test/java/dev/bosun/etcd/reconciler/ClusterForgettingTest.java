package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.dependent.PrimaryDeletions;
import dev.bosun.etcd.client.EtcdClients;
import dev.bosun.etcd.client.EtcdConnections;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.grpc.ManagedChannel;
import java.net.URI;
import java.time.Clock;
import org.junit.jupiter.api.Test;

class ClusterForgettingTest {

  private static EtcdCluster cluster(String uid) {
    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(
        new ObjectMetaBuilder().withNamespace("shop").withName("c-" + uid).withUid(uid).build());
    cluster.setSpec(new EtcdClusterSpec());
    return cluster;
  }

  private static EtcdClusterReconciler reconciler(EtcdConnections connections) {
    return new EtcdClusterReconciler(null, null, Clock.systemUTC(), null, "op", null, connections);
  }

  @Test
  void aDeletedClustersEtcdClientsAreClosed() {
    URI member = URI.create("http://127.0.0.1:1");
    try (EtcdConnections connections = new EtcdConnections()) {
      EtcdClients before = connections.of(null, cluster("u1"));
      ManagedChannel channel = before.channel(member);

      new PrimaryDeletions<EtcdCluster>("deletions", reconciler(connections)::forget)
          .onResourceDeleted(cluster("u1"));

      assertThat(channel.isShutdown()).isTrue();
      assertThat(connections.of(null, cluster("u1"))).isNotSameAs(before);
    }
  }
}
