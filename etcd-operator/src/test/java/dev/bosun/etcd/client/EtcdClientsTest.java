package dev.bosun.etcd.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EtcdClientsTest {

  @Test
  void theClientsOfMembersThatLeftAreClosed() {
    // jetcd connects lazily: building clients opens no connection.
    URI a = URI.create("http://127.0.0.1:1");
    URI b = URI.create("http://127.0.0.2:1");
    try (EtcdClients clients = new EtcdClients()) {
      var first = clients.of(a);
      clients.of(b);
      assertThat(clients.of(a)).isSameAs(first);
      assertThat(clients.endpoints()).containsExactlyInAnyOrder(a, b);
      clients.retain(Set.of(a));
      assertThat(clients.endpoints()).containsExactly(a);
      assertThat(clients.of(a)).isSameAs(first);
    }
  }

  @Test
  void eachMemberHasOneChannelForItsOwnCallsShutDownWhenItLeaves() {
    URI a = URI.create("http://127.0.0.1:1");
    URI b = URI.create("http://127.0.0.2:1");
    io.grpc.ManagedChannel kept;
    try (EtcdClients clients = new EtcdClients()) {
      kept = clients.channel(a);
      io.grpc.ManagedChannel left = clients.channel(b);
      assertThat(clients.channel(a)).isSameAs(kept);

      clients.retain(Set.of(a));

      assertThat(left.isShutdown()).isTrue();
      assertThat(kept.isShutdown()).isFalse();
    }
    assertThat(kept.isShutdown()).isTrue();
  }
}
