package dev.bosun.etcd.plan;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Members of clusters on one machine: each cluster gets its own {@code 127.0.<n>.0/24} (the whole
 * 127.0.0.0/8 is loopback on Linux, no setup needed) and member index {@code i} the address {@code
 * 127.0.<n>.<i+1>}, with etcd's usual ports. Stable per member name, as the Service DNS names are,
 * so a member restarted on its data comes back at the same address. Used by the tests and by local
 * runs against processes on this machine.
 */
public final class LoopbackAddressing implements MemberAddressing {

  private final Map<String, Integer> subnets = new ConcurrentHashMap<>();
  private final AtomicInteger next;

  /** Clusters get subnets from {@code 127.0.<firstSubnet>.0} upwards, in order of first use. */
  public LoopbackAddressing(int firstSubnet) {
    if (firstSubnet < 1 || firstSubnet > 254) {
      throw new IllegalArgumentException("subnet must be 1..254: " + firstSubnet);
    }
    this.next = new AtomicInteger(firstSubnet);
  }

  /** The IP address of a member. */
  public String host(ClusterRef c, String member) {
    int subnet =
        subnets.computeIfAbsent(c.namespace() + "/" + c.name(), k -> next.getAndIncrement());
    if (subnet > 254) {
      throw new IllegalStateException("no loopback subnet left for " + c);
    }
    int index =
        MemberNames.index(c.name(), member)
            .orElseThrow(() -> new IllegalArgumentException("not a member name: " + member));
    if (index > 253) {
      throw new IllegalArgumentException("member index beyond a /24: " + member);
    }
    return "127.0." + subnet + "." + (index + 1);
  }

  @Override
  public URI peerUrl(ClusterRef c, String member) {
    return URI.create(c.peerScheme() + "://" + host(c, member) + ":" + PEER_PORT);
  }

  /** Only for a cluster this instance already gave a subnet (it named its members before). */
  @Override
  public Optional<String> memberAt(ClusterRef c, URI peerUrl) {
    Integer subnet = subnets.get(c.namespace() + "/" + c.name());
    String host = peerUrl.getHost();
    String prefix = "127.0." + subnet + ".";
    if (subnet == null || host == null || !host.startsWith(prefix)) {
      return Optional.empty();
    }
    try {
      String member =
          MemberNames.name(c.name(), Integer.parseInt(host.substring(prefix.length())) - 1);
      return peerUrl(c, member).equals(peerUrl) ? Optional.of(member) : Optional.empty();
    } catch (IllegalArgumentException e) {
      // Not a number, or no member's address (index out of range).
      return Optional.empty();
    }
  }

  @Override
  public URI clientUrl(ClusterRef c, String member) {
    return URI.create(c.clientScheme() + "://" + host(c, member) + ":" + CLIENT_PORT);
  }

  @Override
  public URI listenPeerUrl(ClusterRef c, String member) {
    return peerUrl(c, member);
  }

  @Override
  public URI listenClientUrl(ClusterRef c, String member) {
    return clientUrl(c, member);
  }
}
