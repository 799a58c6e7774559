package dev.bosun.common.testing;

import static dev.bosun.common.testing.ChartAssertions.operatorContainer;
import static dev.bosun.common.testing.ChartAssertions.resolvedEnv;
import static dev.bosun.common.testing.HelmChartFixture.all;
import static dev.bosun.common.testing.HelmChartFixture.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every operator chart's admission webhook must do: be on by default, sending each of the
 * operator's kinds to every replica with RBAC for its caBundle and certificate ({@link
 * WebhookChartAssertions}), whatever namespaces the operator watches, and leave nothing of itself
 * behind with {@code webhook.enabled=false}. Each operator's webhook chart test extends it with its
 * kinds.
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
  void isOnByDefaultSendingEveryKindToEveryReplicaWithRbacForItsCaBundleAndCertificate() {
    WebhookChartAssertions.assertWebhook(CHART.render(), fullname, CHART.namespace(), kinds);
  }

  @Test
  void turnedOffLeavesNoConfigurationServiceRbacOrEnvironment() {
    List<HasMetadata> objects = CHART.render("webhook.enabled", "false");
    assertThat(all(objects, ValidatingWebhookConfiguration.class)).isEmpty();
    assertThat(objects)
        .extracting(o -> o.getMetadata().getName())
        .doesNotContain(fullname + "-webhook");
    Deployment deployment = only(objects, Deployment.class);
    assertThat(WebhookSettings.fromEnvironment(resolvedEnv(deployment, CHART.namespace())))
        .isEmpty();
    assertThat(operatorContainer(deployment).getPorts())
        .extracting(ContainerPort::getName)
        .doesNotContain("https-webhook");
  }

  @Test
  void notesSayCreatesWaitForAReadyOperatorPod() {
    String wait = "rollout status deployment/" + fullname;
    assertThat(CHART.notes()).contains(wait);
    assertThat(CHART.notes("webhook.enabled", "false")).doesNotContain(wait);
  }

  @Test
  void staysWhenTheOperatorWatchesSomeNamespaces() {
    WebhookChartAssertions.assertWebhook(
        CHART.render("watchNamespaces[0]", "team-a"), fullname, CHART.namespace(), kinds);
  }

  @Test
  void schemaRejectsAPrivilegedPortAndALongTimeout() {
    CHART.assertSchemaRejects(List.of("webhook.port", "443"), "/webhook/port");
    CHART.assertSchemaRejects(List.of("webhook.timeoutSeconds", "60"), "/webhook/timeoutSeconds");
  }
}
