package dev.bosun.etcd.testing;

import dev.bosun.common.testing.drill.ClientIdentity;
import dev.bosun.common.testing.drill.NetworkLab;
import dev.bosun.common.testing.drill.Relay;
import dev.bosun.common.testing.drill.TestHost;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberAddressing;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Members on the test hosts of a {@link NetworkLab}: each member gets its own host (network
 * namespace, created when first named) and listens on that host's address, so a drill can cut any
 * member off from any other member or client. Clients that cannot bind to an identity reach a
 * member through a relay of that identity ({@link #via}).
 */
public final class LabAddressing implements MemberAddressing {

  private final NetworkLab lab;
  private final Map<String, TestHost> hosts = new ConcurrentHashMap<>();
  private final Map<String, Relay> relays = new ConcurrentHashMap<>();

  public LabAddressing(NetworkLab lab) {
    this.lab = lab;
  }

  /** The test host of a member. */
  public TestHost host(String member) {
    return hosts.computeIfAbsent(member, lab::host);
  }

  /** The host whose address a URL names, if any. */
  public Optional<TestHost> hostAt(URI url) {
    return hosts.values().stream().filter(h -> h.address().equals(url.getHost())).findFirst();
  }

  /**
   * Where {@code identity} reaches the member URL {@code url}: a relay bound to the identity, so
   * cutting the identity from the member's host cuts this traffic.
   */
  public URI via(ClientIdentity identity, URI url) {
    TestHost host =
        hostAt(url).orElseThrow(() -> new IllegalArgumentException("not a member URL: " + url));
    Relay relay =
        relays.computeIfAbsent(
            identity.name() + "/" + host.name() + "/" + url.getPort(),
            k -> identity.relayTo(host, url.getPort()));
    return URI.create(url.getScheme() + "://" + relay.hostPort());
  }

  @Override
  public URI peerUrl(ClusterRef cluster, String member) {
    return URI.create(cluster.peerScheme() + "://" + host(member).address() + ":" + PEER_PORT);
  }

  @Override
  public Optional<String> memberAt(ClusterRef cluster, URI peerUrl) {
    return hosts.entrySet().stream()
        .filter(e -> e.getValue().address().equals(peerUrl.getHost()))
        .map(Map.Entry::getKey)
        .filter(member -> peerUrl(cluster, member).equals(peerUrl))
        .findFirst();
  }

  @Override
  public URI clientUrl(ClusterRef cluster, String member) {
    return URI.create(cluster.clientScheme() + "://" + host(member).address() + ":" + CLIENT_PORT);
  }

  @Override
  public URI listenPeerUrl(ClusterRef cluster, String member) {
    return peerUrl(cluster, member);
  }

  @Override
  public URI listenClientUrl(ClusterRef cluster, String member) {
    return clientUrl(cluster, member);
  }
}
