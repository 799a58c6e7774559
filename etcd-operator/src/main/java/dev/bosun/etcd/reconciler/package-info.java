/**
 * The etcd reconcilers: the cluster pipeline (observe, plan, act, record), disaster recovery,
 * bootstrap restore, deletions, backups, admission and the status builder.
 */
package dev.bosun.etcd.reconciler;
