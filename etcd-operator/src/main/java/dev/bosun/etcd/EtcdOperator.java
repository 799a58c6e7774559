package dev.bosun.etcd;

import dev.bosun.common.meta.Labels;

/** Names shared by every part of the etcd operator: its labels and annotations are its API. */
public final class EtcdOperator {

  /** Operator name: field manager, Event source, lease name and managed-by label value. */
  public static final String NAME = "bosun-etcd-operator";

  /** Selects what this operator created. */
  public static final String MANAGED_SELECTOR = Labels.MANAGED_BY + "=" + NAME;

  /** The application name in the recommended labels. */
  public static final String APP = "etcd";

  /** The component label of member Pods and volumes. */
  public static final String MEMBER_COMPONENT = "member";

  private static final String PREFIX = "etcd.bosun.dev/";

  /** Label naming the member a Pod or volume belongs to. */
  public static final String MEMBER_LABEL = PREFIX + "member";

  /** Pod label: whether the member votes (the client Service selects voters only). */
  public static final String VOTER_LABEL = PREFIX + "voter";

  /** Volume label: the volume was kept after its member left (never reused, never deleted). */
  public static final String RETAINED_LABEL = PREFIX + "retained";

  /** Annotation of the objects the operator applies: the hash of what it last applied. */
  public static final String APPLIED_HASH = PREFIX + "applied-hash";

  /** Pod annotation: the etcd version the Pod runs. */
  public static final String VERSION_ANNOTATION = PREFIX + "version";

  /** Pod annotation: the snapshot the member's data was restored from. */
  public static final String RESTORED_FROM_ANNOTATION = PREFIX + "restored-from";

  /** Volume annotation: the etcd cluster ID (hex) the volume's data belongs to. */
  public static final String CLUSTER_ID_ANNOTATION = PREFIX + "cluster-id";

  /** Volume annotation: the etcd member ID (hex) the volume's data belongs to. */
  public static final String MEMBER_ID_ANNOTATION = PREFIX + "member-id";

  /**
   * Volume annotation: the member's peer URLs (comma-separated) as etcd's member list holds them.
   */
  public static final String PEER_URLS_ANNOTATION = PREFIX + "peer-urls";

  /** Environment: the operator's own image, which restore init containers run. */
  public static final String OPERATOR_IMAGE_ENV = "BOSUN_OPERATOR_IMAGE";

  /** The image restore init containers use when the chart does not say. */
  public static final String DEFAULT_OPERATOR_IMAGE = "bosun/etcd-operator:0.1.0";

  private EtcdOperator() {}
}
