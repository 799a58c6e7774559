/**
 * Snapshots of an etcd cluster: taking one from a healthy member, the Jobs that run it, and where
 * they are stored.
 */
package dev.bosun.etcd.backup;
