package dev.bosun.etcd.plan;

import java.net.URI;
import java.util.Optional;

/**
 * Where a member is reached and where it listens: the one seam that feeds MemberAdd, the {@code
 * --initial-cluster} list, the member's own flags and the operator's jetcd endpoints. In a cluster
 * these are the per-member DNS names of the headless peer Service ({@link ServiceAddressing});
 * tests give each member its own loopback address ({@link LoopbackAddressing}), because the etcd
 * processes dial their peers themselves and a made-up DNS name would make them ask the system
 * resolver.
 */
public interface MemberAddressing {

  int CLIENT_PORT = 2379;
  int PEER_PORT = 2380;

  /** The URL other members reach this member's peer port at. */
  URI peerUrl(ClusterRef cluster, String member);

  /** The URL clients reach this member at. */
  URI clientUrl(ClusterRef cluster, String member);

  /**
   * The member whose peer URL {@code peerUrl} is, if this addressing gives it to a member of the
   * cluster: etcd's member list keeps only the peer URL of a learner that has not started.
   */
  Optional<String> memberAt(ClusterRef cluster, URI peerUrl);

  /** What the member binds its peer port to. */
  URI listenPeerUrl(ClusterRef cluster, String member);

  /** What the member binds its client port to. */
  URI listenClientUrl(ClusterRef cluster, String member);

  /**
   * What the member binds its plain-HTTP metrics listener to: the client listener's address on
   * {@code port}.
   */
  default URI listenMetricsUrl(ClusterRef cluster, String member, int port) {
    return URI.create("http://" + listenClientUrl(cluster, member).getHost() + ":" + port);
  }
}
