package dev.bosun.common.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RestoreEndpointTest {

  static final Map<String, String> CHART =
      Map.of(
          RestoreEndpoint.URL, "https://op-restore.ops.svc:8443",
          RestoreEndpoint.SERVICE, "op-restore",
          RestoreEndpoint.NAMESPACE, "ops",
          RestoreEndpoint.TLS_SECRET, "op-tls");

  @Test
  void theChartsEnvironmentNamesTheServiceEveryWayAPodMayResolveIt() {
    RestoreEndpoint endpoint = RestoreEndpoint.fromEnvironment(CHART).orElseThrow();
    assertThat(endpoint.url()).isEqualTo(URI.create("https://op-restore.ops.svc:8443"));
    assertThat(endpoint.port()).isEqualTo(RestoreEndpoint.DEFAULT_PORT);
    assertThat(endpoint.namespace()).isEqualTo("ops");
    assertThat(endpoint.tlsSecret()).isEqualTo("op-tls");
    assertThat(endpoint.dnsNames())
        .containsExactly(
            "op-restore",
            "op-restore.ops",
            "op-restore.ops.svc",
            "op-restore.ops.svc.cluster.local");
  }

  @Test
  void aCustomUrlsHostGoesOnTheCertificateToo() {
    var env = new java.util.HashMap<>(CHART);
    env.put(RestoreEndpoint.URL, "https://etcd-restore.example:9443");
    env.put(RestoreEndpoint.PORT, "9443");
    RestoreEndpoint endpoint = RestoreEndpoint.fromEnvironment(env).orElseThrow();
    assertThat(endpoint.port()).isEqualTo(9443);
    assertThat(endpoint.dnsNames()).hasSize(5).endsWith("etcd-restore.example");
  }

  @Test
  void withoutAUrlThereIsNoEndpoint() {
    assertThat(RestoreEndpoint.fromEnvironment(Map.of())).isEmpty();
  }

  @Test
  void plainHttpAnAddressOrAMissingSecretIsRefusedSayingWhy() {
    var http = new java.util.HashMap<>(CHART);
    http.put(RestoreEndpoint.URL, "http://op-restore.ops.svc:8080");
    assertThatThrownBy(() -> RestoreEndpoint.fromEnvironment(http))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be an https URL");
    var address = new java.util.HashMap<>(CHART);
    address.put(RestoreEndpoint.URL, "https://10.0.0.7:8443");
    assertThatThrownBy(() -> RestoreEndpoint.fromEnvironment(address))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DNS name");
    var noSecret = new java.util.HashMap<>(CHART);
    noSecret.remove(RestoreEndpoint.TLS_SECRET);
    assertThatThrownBy(() -> RestoreEndpoint.fromEnvironment(noSecret))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(RestoreEndpoint.TLS_SECRET);
  }

  @Test
  void aHostTheCertificateWouldNotCarryIsRefused() {
    assertThatThrownBy(
            () ->
                new RestoreEndpoint(
                    URI.create("https://elsewhere:8443"), 8443, "ops", "op-tls", List.of("op")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("elsewhere");
  }
}
