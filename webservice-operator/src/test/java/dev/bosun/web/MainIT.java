package dev.bosun.web;

import static dev.bosun.web.WebServices.webService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The operator as its Main runs it: bootstrap, leader election, health, metrics, shutdown. */
@ExtendWith(ControlPlaneExtension.class)
class MainIT {

  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void runsWithLeaderElectionServesHealthAndMetricsAndStopsCleanly() throws Exception {
    KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient();
    Crds.install(client, "webservices.web.bosun.dev");
    String ns = "main-it";
    Crds.namespace(client, ns, java.util.Map.of(), java.util.Map.of());
    OperatorSettings settings =
        OperatorSettings.fromMap(
            WebServiceOperator.NAME,
            Map.of(
                OperatorSettings.LEADER_ELECTION,
                "true",
                OperatorSettings.LEASE_NAMESPACE,
                ns,
                OperatorSettings.WATCH_NAMESPACES,
                ns,
                OperatorSettings.HTTP_PORT,
                "0"));

    OperatorRuntime runtime = Main.create(settings, client).start();
    int port = runtime.httpPort();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(get(port, "/readyz").statusCode()).isEqualTo(200));
      assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
      String metrics = get(port, "/metrics").body();
      assertThat(metrics).contains("jvm_memory_used_bytes");

      // Leader election took the Lease named after the operator in its namespace.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(client.leases().inNamespace(ns).withName(settings.leaseName()).get())
                      .isNotNull()
                      .satisfies(l -> assertThat(l.getSpec().getHolderIdentity()).isNotBlank()));

      client
          .resources(WebService.class)
          .inNamespace(ns)
          .resource(webService("hello", "nginx:1.25", 1))
          .create();
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                WebService ws =
                    client.resources(WebService.class).inNamespace(ns).withName("hello").get();
                assertThat(ws.getStatus()).isNotNull();
                assertThat(Conditions.isTrue(ws.getStatus().getConditions(), "Ready")).isTrue();
              });
      assertThat(get(port, "/metrics").body()).contains("operator_sdk");
    } finally {
      runtime.close();
    }
    // After a graceful stop the endpoint is gone.
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> get(port, "/healthz"))
        .isInstanceOf(java.io.IOException.class);
    client.namespaces().withName(ns).delete();
    client.close();
  }
}
