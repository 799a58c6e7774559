/**
 * The configsync operator: ConfigMapSync and SecretSync copy configuration into selected
 * namespaces, ConfigMonitor restarts workloads when the configuration they use changes.
 */
package dev.bosun.config;
