/**
 * The configsync reconcilers: one {@code SyncReconciler} pipeline for both copy kinds, the monitor
 * reconciler, admission and conditions.
 */
package dev.bosun.config.reconciler;
