package dev.bosun.mysql.chart;

import dev.bosun.common.testing.ServiceMonitorInstallContract;

/** The chart's ServiceMonitor against a real API server's discovery. */
class MySQLServiceMonitorIT extends ServiceMonitorInstallContract {

  MySQLServiceMonitorIT() {
    super("bosun-mysql-operator");
  }
}
