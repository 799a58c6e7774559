package dev.bosun.web.chart;

import dev.bosun.common.testing.ServiceMonitorInstallContract;

/** The chart's ServiceMonitor against a real API server's discovery. */
class WebServiceServiceMonitorIT extends ServiceMonitorInstallContract {

  WebServiceServiceMonitorIT() {
    super("bosun-webservice-operator");
  }
}
