/**
 * Restoring an etcd cluster from a snapshot: where the snapshot comes from, the route a member
 * fetches it through, and the Secrets that grant it.
 */
package dev.bosun.etcd.restore;
