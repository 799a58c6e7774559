package dev.bosun.etcd;

/** Names shared by every part of the etcd operator. */
public final class EtcdOperator {

  /** Operator name: field manager, Event source, lease name and managed-by label value. */
  public static final String NAME = "bosun-etcd-operator";

  private EtcdOperator() {}
}
