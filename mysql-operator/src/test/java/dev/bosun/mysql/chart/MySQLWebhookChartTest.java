package dev.bosun.mysql.chart;

import static dev.bosun.common.testing.HelmChartFixture.all;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.HelmChartFixture;
import dev.bosun.common.testing.WebhookChartAssertions;
import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import dev.bosun.mysql.reconciler.BackupAdmission;
import dev.bosun.mysql.reconciler.ClusterAdmission;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The chart's admission webhook: off by default, and with webhook.enabled wired end to end. */
class MySQLWebhookChartTest {

  private static final HelmChartFixture CHART =
      new HelmChartFixture(Path.of("chart"), "bosun", "bosun-system");

  private static final List<Checked> KINDS =
      List.of(
          new Checked("mysql.bosun.dev", "v1alpha1", "mysqlclusters", ClusterAdmission.PATH),
          new Checked("mysql.bosun.dev", "v1alpha1", "mysqlbackups", BackupAdmission.PATH));

  @Test
  void isOffByDefault() {
    assertThat(all(CHART.render(), ValidatingWebhookConfiguration.class)).isEmpty();
  }

  @Test
  void sendsBothKindsToEveryReplicaWithRbacForItsCaBundleAndCertificate() {
    WebhookChartAssertions.assertWebhook(
        CHART.render("webhook.enabled", "true"),
        "bosun-bosun-mysql-operator",
        "bosun-system",
        KINDS);
  }

  @Test
  void staysWhenTheOperatorWatchesSomeNamespaces() {
    WebhookChartAssertions.assertWebhook(
        CHART.render("webhook.enabled", "true", "watchNamespaces[0]", "team-a"),
        "bosun-bosun-mysql-operator",
        "bosun-system",
        KINDS);
  }

  @Test
  void schemaRejectsAPrivilegedPortAndALongTimeout() {
    CHART.assertSchemaRejects(List.of("webhook.port", "443"), "/webhook/port");
    CHART.assertSchemaRejects(List.of("webhook.timeoutSeconds", "60"), "/webhook/timeoutSeconds");
  }
}
