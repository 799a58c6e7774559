package dev.bosun.config.chart;

import dev.bosun.common.testing.ServiceMonitorInstallContract;

/** The chart's ServiceMonitor against a real API server's discovery. */
class ConfigSyncServiceMonitorIT extends ServiceMonitorInstallContract {

  ConfigSyncServiceMonitorIT() {
    super("bosun-configsync-operator");
  }
}
