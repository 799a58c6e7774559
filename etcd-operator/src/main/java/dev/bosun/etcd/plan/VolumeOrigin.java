package dev.bosun.etcd.plan;

/**
 * Which etcd cluster and member a volume's data belongs to, as the operator stamped it on the
 * volume once that member answered: what lets a cluster re-created over kept volumes resume the
 * cluster they hold instead of guessing.
 *
 * @param clusterId etcd's cluster ID, in hex
 * @param memberId etcd's member ID, in hex
 * @param peerUrls the peer URLs etcd's member list held for the member, comma-separated (empty when
 *     the stamp does not say): etcd keeps them in its data, so members resumed under other URLs
 *     could not reach each other
 */
public record VolumeOrigin(String clusterId, String memberId, String peerUrls) {

  /** An origin whose peer URLs are not known. */
  public VolumeOrigin(String clusterId, String memberId) {
    this(clusterId, memberId, "");
  }

  public VolumeOrigin {
    if (clusterId == null || clusterId.isBlank() || memberId == null || memberId.isBlank()) {
      throw new IllegalArgumentException("a volume origin needs a cluster ID and a member ID");
    }
    peerUrls = peerUrls == null ? "" : peerUrls;
  }
}
