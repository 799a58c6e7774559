/**
 * Pure planning of membership: the next step (add, remove, replace a member) from an observation,
 * never a destructive one without quorum evidence.
 */
package dev.bosun.etcd.plan;
