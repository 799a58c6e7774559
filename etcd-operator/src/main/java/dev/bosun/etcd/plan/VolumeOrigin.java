package dev.bosun.etcd.plan;

/**
 * Which etcd cluster and member a volume's data belongs to, as the operator stamped it on the
 * volume once that member answered: what lets a cluster re-created over kept volumes resume the
 * cluster they hold instead of guessing.
 *
 * @param clusterId etcd's cluster ID, in hex
 * @param memberId etcd's member ID, in hex
 */
public record VolumeOrigin(String clusterId, String memberId) {

  public VolumeOrigin {
    if (clusterId == null || clusterId.isBlank() || memberId == null || memberId.isBlank()) {
      throw new IllegalArgumentException("a volume origin needs a cluster ID and a member ID");
    }
  }
}
