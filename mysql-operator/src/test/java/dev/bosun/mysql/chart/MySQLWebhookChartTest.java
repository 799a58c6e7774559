package dev.bosun.mysql.chart;

import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import dev.bosun.common.testing.WebhookChartContract;
import dev.bosun.mysql.reconciler.BackupAdmission;
import dev.bosun.mysql.reconciler.ClusterAdmission;
import java.util.List;

/** The chart's admission webhook: off by default, and with webhook.enabled wired end to end. */
class MySQLWebhookChartTest extends WebhookChartContract {

  MySQLWebhookChartTest() {
    super(
        "bosun-bosun-mysql-operator",
        List.of(
            new Checked("mysql.bosun.dev", "v1alpha1", "mysqlclusters", ClusterAdmission.PATH),
            new Checked("mysql.bosun.dev", "v1alpha1", "mysqlbackups", BackupAdmission.PATH)));
  }
}
