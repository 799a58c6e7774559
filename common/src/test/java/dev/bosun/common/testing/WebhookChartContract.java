package dev.bosun.common.testing;

import static dev.bosun.common.testing.HelmChartFixture.all;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every operator chart's admission webhook must do: stay off by default, and with {@code
 * webhook.enabled} send each of the operator's kinds to every replica with RBAC for its caBundle
 * and certificate ({@link WebhookChartAssertions}), whatever namespaces the operator watches. Each
 * operator's webhook chart test extends it with its kinds.
 */
public abstract class WebhookChartContract {

  /** The module's chart, rendered as release bosun in bosun-system. */
  protected static final HelmChartFixture CHART =
      new HelmChartFixture(Path.of("chart"), "bosun", "bosun-system");

  private final String fullname;
  private final List<Checked> kinds;

  /** The chart whose objects are named {@code fullname}, checking {@code kinds}. */
  protected WebhookChartContract(String fullname, List<Checked> kinds) {
    this.fullname = fullname;
    this.kinds = List.copyOf(kinds);
  }

  @Test
  void isOffByDefault() {
    assertThat(all(CHART.render(), ValidatingWebhookConfiguration.class)).isEmpty();
  }

  @Test
  void sendsEveryKindToEveryReplicaWithRbacForItsCaBundleAndCertificate() {
    WebhookChartAssertions.assertWebhook(
        CHART.render("webhook.enabled", "true"), fullname, CHART.namespace(), kinds);
  }

  @Test
  void staysWhenTheOperatorWatchesSomeNamespaces() {
    WebhookChartAssertions.assertWebhook(
        CHART.render("webhook.enabled", "true", "watchNamespaces[0]", "team-a"),
        fullname,
        CHART.namespace(),
        kinds);
  }

  @Test
  void schemaRejectsAPrivilegedPortAndALongTimeout() {
    CHART.assertSchemaRejects(List.of("webhook.port", "443"), "/webhook/port");
    CHART.assertSchemaRejects(List.of("webhook.timeoutSeconds", "60"), "/webhook/timeoutSeconds");
  }
}
