package dev.bosun.mysql.objects;

import dev.bosun.mysql.v1alpha1.MySQLCluster;

/** Names of the objects of one MySQLCluster. */
public final class ClusterNames {

  private ClusterNames() {}

  public static String headless(MySQLCluster c) {
    return c.getMetadata().getName() + "-headless";
  }

  public static String primaryService(MySQLCluster c) {
    return c.getMetadata().getName() + "-primary";
  }

  public static String replicasService(MySQLCluster c) {
    return c.getMetadata().getName() + "-replicas";
  }

  public static String config(MySQLCluster c) {
    return c.getMetadata().getName() + "-config";
  }

  /** The root password Secret: the one the spec names, else a generated one. */
  public static String rootSecret(MySQLCluster c) {
    var s = c.getSpec().getRootPasswordSecret();
    return s != null ? s.getName() : c.getMetadata().getName() + "-root";
  }

  public static String rootSecretKey(MySQLCluster c) {
    var s = c.getSpec().getRootPasswordSecret();
    return s != null && s.getKey() != null ? s.getKey() : "password";
  }

  public static String replicationSecret(MySQLCluster c) {
    return c.getMetadata().getName() + "-replication";
  }

  /** The metrics exporter's password, generated while spec.metrics is enabled. */
  public static String metricsSecret(MySQLCluster c) {
    return c.getMetadata().getName() + "-metrics";
  }

  public static String operatorSecret(MySQLCluster c) {
    return c.getMetadata().getName() + "-operator";
  }

  /** The pod name of one ordinal. */
  public static String pod(MySQLCluster c, int ordinal) {
    return c.getMetadata().getName() + "-" + ordinal;
  }
}
