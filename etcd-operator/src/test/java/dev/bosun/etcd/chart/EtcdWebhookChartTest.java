package dev.bosun.etcd.chart;

import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.testing.WebhookChartAssertions;
import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import dev.bosun.common.testing.WebhookChartContract;
import dev.bosun.common.tls.ServiceDnsNames;
import dev.bosun.common.transfer.RestoreEndpoint;
import dev.bosun.etcd.reconciler.EtcdBackupAdmission;
import dev.bosun.etcd.reconciler.EtcdClusterAdmission;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chart's admission webhook: on by default and wired end to end, gone when turned off, and next
 * to the restore route one certificate Secret for both.
 */
class EtcdWebhookChartTest extends WebhookChartContract {

  private static final String FULLNAME = "bosun-bosun-etcd-operator";
  private static final List<Checked> KINDS =
      List.of(
          new Checked("etcd.bosun.dev", "v1alpha1", "etcdclusters", EtcdClusterAdmission.PATH),
          new Checked("etcd.bosun.dev", "v1alpha1", "etcdbackups", EtcdBackupAdmission.PATH));

  EtcdWebhookChartTest() {
    super(FULLNAME, KINDS);
  }

  @Test
  void withTheRestoreRouteBothServeOneCertificateFromOneSecret() {
    List<HasMetadata> objects =
        CHART.render("webhook.enabled", "true", "backup.volume.enabled", "true");
    WebhookChartAssertions.assertWebhook(objects, FULLNAME, CHART.namespace(), KINDS);

    Deployment deployment = only(objects, Deployment.class);
    // Each variable once: a name given twice is kept last-wins by the API server and fought
    // over by every apply.
    assertThat(operatorContainer(deployment).getEnv())
        .extracting(EnvVar::getName)
        .doesNotHaveDuplicates();
    Map<String, String> env = resolvedEnv(deployment, CHART.namespace());
    WebhookSettings webhook = WebhookSettings.fromEnvironment(env).orElseThrow();
    RestoreEndpoint restore = RestoreEndpoint.fromEnvironment(env).orElseThrow();
    assertThat(restore.tlsSecret()).isEqualTo(webhook.tlsSecret());
    assertThat(restore.namespace()).isEqualTo(webhook.namespace());
    assertThat(webhook.dnsNames())
        .containsExactlyElementsOf(ServiceDnsNames.of(FULLNAME + "-webhook", CHART.namespace()));
    assertThat(restore.dnsNames())
        .containsExactlyElementsOf(ServiceDnsNames.of(FULLNAME + "-restore", CHART.namespace()));
    // One Role on the one Secret, not one per endpoint (helm refuses two objects of one name).
    assertThat(all(objects, Role.class))
        .filteredOn(r -> r.getMetadata().getName().equals(FULLNAME + "-tls"))
        .hasSize(1);
  }

  @Test
  void theRestoreRouteAloneKeepsItsCertificateEnvironmentAndRole() {
    List<HasMetadata> objects =
        CHART.render("webhook.enabled", "false", "backup.volume.enabled", "true");
    Map<String, String> env = resolvedEnv(only(objects, Deployment.class), CHART.namespace());
    assertThat(WebhookSettings.fromEnvironment(env)).isEmpty();
    assertThat(RestoreEndpoint.fromEnvironment(env).orElseThrow().tlsSecret())
        .isEqualTo(FULLNAME + "-tls");
    assertThat(all(objects, Role.class))
        .filteredOn(r -> r.getMetadata().getName().equals(FULLNAME + "-tls"))
        .hasSize(1);
  }

  @Test
  void refusesOnePortForBothServers() {
    assertThatThrownBy(
            () ->
                CHART.render(
                    "webhook.enabled",
                    "true",
                    "backup.volume.enabled",
                    "true",
                    "backup.volume.restorePort",
                    "9443"))
        .hasMessageContaining("backup.volume.restorePort and webhook.port must differ");
  }
}
