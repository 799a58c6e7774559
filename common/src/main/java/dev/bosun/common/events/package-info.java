/**
 * Kubernetes Events for people: one recorder whose repeats of a reason and message bump a count
 * instead of flooding the namespace.
 */
package dev.bosun.common.events;
