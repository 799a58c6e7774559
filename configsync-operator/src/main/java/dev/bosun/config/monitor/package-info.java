/** ConfigMonitor's decisions: which workloads to roll after a change and what their status says. */
package dev.bosun.config.monitor;
