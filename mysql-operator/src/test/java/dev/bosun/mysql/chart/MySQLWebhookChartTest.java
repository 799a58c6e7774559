package dev.bosun.mysql.chart;

import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import dev.bosun.common.testing.WebhookChartContract;
import dev.bosun.mysql.reconciler.BackupAdmission;
import dev.bosun.mysql.reconciler.ClusterAdmission;
import java.util.List;

/** The chart's admission webhook: on by default and wired end to end, gone when turned off. */
class MySQLWebhookChartTest extends WebhookChartContract {

  MySQLWebhookChartTest() {
    super(
        "bosun-bosun-mysql-operator",
        List.of(
            new Checked("mysql.bosun.dev", "v1alpha1", "mysqlclusters", ClusterAdmission.PATH),
            new Checked("mysql.bosun.dev", "v1alpha1", "mysqlbackups", BackupAdmission.PATH)));
  }
}
