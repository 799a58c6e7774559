package dev.bosun.etcd.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.grpc.ManagedChannel;
import java.net.URI;
import org.junit.jupiter.api.Test;

class EtcdConnectionsTest {

  static EtcdCluster cluster(String uid) {
    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(
        new ObjectMetaBuilder().withNamespace("shop").withName("c-" + uid).withUid(uid).build());
    cluster.setSpec(new EtcdClusterSpec());
    return cluster;
  }

  @Test
  void aForgottenClusterHasItsClientsClosedAndTheOthersKeepTheirs() {
    // Plain-text clusters read no Secret, and jetcd connects lazily: no API server, no etcd.
    URI member = URI.create("http://127.0.0.1:1");
    try (EtcdConnections connections = new EtcdConnections()) {
      EtcdClients deleted = connections.of(null, cluster("a"));
      EtcdClients kept = connections.of(null, cluster("b"));
      ManagedChannel deletedChannel = deleted.channel(member);
      ManagedChannel keptChannel = kept.channel(member);
      assertThat(connections.clusters()).isEqualTo(2);

      connections.forget("a");

      assertThat(connections.clusters()).isEqualTo(1);
      assertThat(deletedChannel.isShutdown()).isTrue();
      assertThat(keptChannel.isShutdown()).isFalse();
      assertThat(connections.of(null, cluster("b"))).isSameAs(kept);
      connections.forget("unknown");
      assertThat(connections.clusters()).isEqualTo(1);
    }
  }

  @Test
  void closingClosesEveryClustersClients() {
    URI member = URI.create("http://127.0.0.1:1");
    EtcdConnections connections = new EtcdConnections();
    ManagedChannel channel = connections.of(null, cluster("a")).channel(member);
    connections.close();
    assertThat(channel.isShutdown()).isTrue();
    assertThat(connections.clusters()).isZero();
  }
}
