package dev.bosun.config.chart;

import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import dev.bosun.common.testing.WebhookChartContract;
import dev.bosun.config.reconciler.MonitorAdmission;
import dev.bosun.config.reconciler.SyncAdmission;
import java.util.List;

/** The chart's admission webhook: on by default and wired end to end, gone when turned off. */
class ConfigSyncWebhookChartTest extends WebhookChartContract {

  private static final String GROUP = "config.bosun.dev";

  ConfigSyncWebhookChartTest() {
    super(
        "bosun-bosun-configsync-operator",
        List.of(
            new Checked(GROUP, "v1alpha1", "configmapsyncs", SyncAdmission.CONFIGMAPSYNCS),
            new Checked(GROUP, "v1alpha1", "secretsyncs", SyncAdmission.SECRETSYNCS),
            new Checked(GROUP, "v1alpha1", "configmonitors", MonitorAdmission.PATH)));
  }
}
