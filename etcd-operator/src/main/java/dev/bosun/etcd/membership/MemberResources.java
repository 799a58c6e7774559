package dev.bosun.etcd.membership;

/**
 * What Kubernetes holds for one member name.
 *
 * @param name the member name ({@code <cluster>-<index>})
 * @param pod whether its Pod exists and is not being deleted
 * @param volume whether its PersistentVolumeClaim exists (its data) and is not retained
 * @param version the etcd version its Pod runs (empty without a Pod)
 */
public record MemberResources(String name, boolean pod, boolean volume, String version) {}
