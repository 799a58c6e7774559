/**
 * The MySQL reconcilers: the cluster pipeline (validate, Secrets, health round, objects, status),
 * backups, restores, rebuilds, upgrades and admission.
 */
package dev.bosun.mysql.reconciler;
