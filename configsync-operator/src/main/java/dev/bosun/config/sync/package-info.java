/**
 * Pure planning of a copy: which namespaces consent, what each destination should hold, and how
 * each kind (ConfigMap, Secret) is written.
 */
package dev.bosun.config.sync;
