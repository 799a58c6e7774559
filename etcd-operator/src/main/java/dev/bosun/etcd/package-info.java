/**
 * The etcd operator: EtcdCluster runs a member-per-Pod etcd cluster with recorded, evidence-based
 * membership changes; EtcdBackup snapshots it.
 */
package dev.bosun.etcd;
