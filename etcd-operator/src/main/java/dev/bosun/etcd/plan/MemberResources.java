package dev.bosun.etcd.plan;

import java.time.Instant;

/**
 * What Kubernetes holds for one member name.
 *
 * @param name the member name ({@code <cluster>-<index>})
 * @param pod whether its Pod exists and is not being deleted
 * @param volume whether its PersistentVolumeClaim exists (its data) and is not retained
 * @param version the etcd version its Pod runs (empty without a Pod)
 * @param running whether Kubernetes reports the Pod's etcd container running (false while it is
 *     Pending, unschedulable, waiting, or after it terminated)
 * @param podCreated when the Pod was created (null without a Pod)
 * @param origin the cluster and member its volume's data belongs to (null without a volume, or when
 *     the volume was never stamped: its member never answered the operator)
 */
public record MemberResources(
    String name,
    boolean pod,
    boolean volume,
    String version,
    boolean running,
    Instant podCreated,
    VolumeOrigin origin) {

  /** Resources whose volume's origin is not known. */
  public MemberResources(
      String name,
      boolean pod,
      boolean volume,
      String version,
      boolean running,
      Instant podCreated) {
    this(name, pod, volume, version, running, podCreated, null);
  }

  /** Resources whose Pod, if there is one, runs. */
  public MemberResources(String name, boolean pod, boolean volume, String version) {
    this(name, pod, volume, version, pod, null);
  }

  /**
   * True when Kubernetes itself says the member cannot be serving: no Pod, no volume, or its etcd
   * container not running. Positive evidence, unlike a member the operator merely cannot reach.
   */
  public boolean down() {
    return !pod || !volume || !running;
  }
}
