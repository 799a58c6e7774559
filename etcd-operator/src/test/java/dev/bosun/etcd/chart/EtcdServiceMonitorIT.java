package dev.bosun.etcd.chart;

import dev.bosun.common.testing.ServiceMonitorInstallContract;

/** The chart's ServiceMonitor against a real API server's discovery. */
class EtcdServiceMonitorIT extends ServiceMonitorInstallContract {

  EtcdServiceMonitorIT() {
    super("bosun-etcd-operator");
  }
}
