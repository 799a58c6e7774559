package dev.bosun.common.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.admission.WebhookSettings;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OperatorCertificateTest {

  private static final RestoreEndpoint RESTORE =
      RestoreEndpoint.fromEnvironment(RestoreEndpointTest.CHART).orElseThrow();

  private static WebhookSettings webhook(String secret) {
    return WebhookSettings.fromEnvironment(
            Map.of(
                WebhookSettings.CONFIGURATION, "ops-op",
                WebhookSettings.SERVICE, "op-webhook",
                WebhookSettings.NAMESPACE, "ops",
                WebhookSettings.TLS_SECRET, secret))
        .orElseThrow();
  }

  @Test
  void oneCertificateCarriesTheNamesOfBothServices() {
    assertThat(OperatorCertificate.dnsNames(Optional.of(RESTORE), Optional.of(webhook("op-tls"))))
        .containsExactly(
            "op-restore",
            "op-restore.ops",
            "op-restore.ops.svc",
            "op-restore.ops.svc.cluster.local",
            "op-webhook",
            "op-webhook.ops",
            "op-webhook.ops.svc",
            "op-webhook.ops.svc.cluster.local");
    assertThat(OperatorCertificate.dnsNames(Optional.empty(), Optional.of(webhook("op-tls"))))
        .containsExactly(
            "op-webhook",
            "op-webhook.ops",
            "op-webhook.ops.svc",
            "op-webhook.ops.svc.cluster.local");
  }

  @Test
  void twoSecretsAreRefusedAndNoEndpointNeedsNone() {
    assertThatThrownBy(
            () ->
                OperatorCertificate.store(
                    null,
                    "op",
                    Clock.systemUTC(),
                    Optional.of(RESTORE),
                    Optional.of(webhook("other"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("share one certificate")
        .hasMessageContaining("ops/op-tls")
        .hasMessageContaining("ops/other");
    assertThat(
            OperatorCertificate.store(
                null, "op", Clock.systemUTC(), Optional.empty(), Optional.empty()))
        .isEmpty();
  }
}
