package dev.bosun.etcd.plan;

import java.net.URI;
import java.util.Optional;

/**
 * Members addressed by the DNS names the headless peer Service gives each Pod ({@code
 * <member>.<cluster>-peer.<namespace>.svc}); members bind every interface of their Pod.
 */
public final class ServiceAddressing implements MemberAddressing {

  /** The headless Service that gives every member its DNS name. */
  public static String peerService(String cluster) {
    return cluster + "-peer";
  }

  /** The Service clients use; it selects voting members only. */
  public static String clientService(String cluster) {
    return cluster + "-client";
  }

  private static String host(ClusterRef c, String member) {
    return member + "." + peerService(c.name()) + "." + c.namespace() + ".svc";
  }

  @Override
  public URI peerUrl(ClusterRef c, String member) {
    return URI.create(c.peerScheme() + "://" + host(c, member) + ":" + PEER_PORT);
  }

  @Override
  public Optional<String> memberAt(ClusterRef c, URI peerUrl) {
    String host = peerUrl.getHost();
    String suffix = "." + peerService(c.name()) + "." + c.namespace() + ".svc";
    if (host == null || !host.endsWith(suffix)) {
      return Optional.empty();
    }
    String member = host.substring(0, host.length() - suffix.length());
    return MemberNames.isOurs(c.name(), member) && peerUrl(c, member).equals(peerUrl)
        ? Optional.of(member)
        : Optional.empty();
  }

  @Override
  public URI clientUrl(ClusterRef c, String member) {
    return URI.create(c.clientScheme() + "://" + host(c, member) + ":" + CLIENT_PORT);
  }

  @Override
  public URI listenPeerUrl(ClusterRef c, String member) {
    return URI.create(c.peerScheme() + "://0.0.0.0:" + PEER_PORT);
  }

  @Override
  public URI listenClientUrl(ClusterRef c, String member) {
    return URI.create(c.clientScheme() + "://0.0.0.0:" + CLIENT_PORT);
  }
}
