package dev.bosun.common.tls;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The certificate Secret on a real API server, written and renewed by replicas of one operator. */
@ExtendWith(ControlPlaneExtension.class)
class CertificateSecretStoreIT {

  static final List<String> NAMES = List.of("localhost");

  KubernetesClient client;
  String ns;

  @BeforeEach
  void namespace() {
    client = ControlPlaneExtension.controlPlane().adminClient();
    ns = Crds.namespace(client, "tls-" + System.nanoTime() % 100000, Map.of(), Map.of());
  }

  @AfterEach
  void close() {
    client.close();
  }

  CertificateSecretStore replica(Instant now) {
    return new CertificateSecretStore(
        client,
        ns,
        "op-tls",
        "bosun-test-operator",
        NAMES,
        CertificatePolicy.DEFAULT,
        Clock.fixed(now, ZoneOffset.UTC));
  }

  @Test
  void theFirstReplicaIssuesAndStoresAndARestartedOrSecondReplicaServesTheSame() {
    Instant now = Instant.now();
    CertificateBundle first = replica(now).ensure();
    var secret = client.secrets().inNamespace(ns).withName("op-tls").get();
    assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
    assertThat(secret.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "bosun-test-operator");
    String version = secret.getMetadata().getResourceVersion();

    CertificateBundle second = replica(now.plus(Duration.ofDays(1))).ensure();
    assertThat(second.serving().certificate()).isEqualTo(first.serving().certificate());
    assertThat(second.caBundlePem()).isEqualTo(first.caBundlePem());
    assertThat(client.secrets().inNamespace(ns).withName("op-tls").get().getMetadata())
        .as("nothing was written")
        .extracting(m -> m.getResourceVersion())
        .isEqualTo(version);
  }

  @Test
  void aServingCertificateDueForRenewalIsReplacedUnderTheSameCa() {
    Instant now = Instant.now();
    CertificateBundle first = replica(now).ensure();
    CertificateBundle renewed = replica(now.plus(Duration.ofDays(340))).ensure();
    assertThat(renewed.serving().certificate()).isNotEqualTo(first.serving().certificate());
    assertThat(renewed.caBundlePem()).as("clients keep their CA").isEqualTo(first.caBundlePem());
    assertThat(renewed.serving().notAfter()).isAfter(now.plus(Duration.ofDays(700)));
    var stored =
        (StoredCertificates.Present)
            TlsSecrets.read(client.secrets().inNamespace(ns).withName("op-tls").get());
    assertThat(stored.bundle().serving().certificate()).isEqualTo(renewed.serving().certificate());
  }

  @Test
  void replicasStartingTogetherAllServeWhatTheSecretHolds() {
    Instant now = Instant.now();
    List<CompletableFuture<CertificateBundle>> replicas =
        IntStream.range(0, 4)
            .mapToObj(i -> CompletableFuture.supplyAsync(() -> replica(now).ensure()))
            .toList();
    replicas.forEach(CompletableFuture::join);
    var stored =
        (StoredCertificates.Present)
            TlsSecrets.read(client.secrets().inNamespace(ns).withName("op-tls").get());
    for (var replica : replicas) {
      assertThat(replica.join().serving().certificate())
          .isEqualTo(stored.bundle().serving().certificate());
    }
  }

  @Test
  void aRunningServerPresentsTheCertificateAnotherReplicaRenewedAfterItsNextCheck()
      throws Exception {
    Instant now = Instant.now();
    // This replica issued its certificate 340 days ago: 25 days left, still valid.
    AtomicReference<Instant> time = new AtomicReference<>(now.minus(Duration.ofDays(340)));
    Clock clock =
        new Clock() {
          @Override
          public ZoneOffset getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return time.get();
          }
        };
    CertificateSecretStore store =
        new CertificateSecretStore(
            client, ns, "op-tls", "bosun-test-operator", NAMES, CertificatePolicy.DEFAULT, clock);
    try (ServingCertificates serving =
            ServingCertificates.start(store, ServingCertificates.CHECK_EVERY);
        HttpsEndpoint endpoint =
            HttpsEndpoint.start(0, serving.sslContext(), Map.of("/r", OK), 2, "test-https")) {
      X509Certificate before = presented(serving, endpoint);
      assertThat(before).isEqualTo(serving.current().serving().certificate());

      // Another replica, today, renews the certificate in the Secret under the same CA.
      CertificateBundle renewed = replica(now).ensure();
      assertThat(renewed.serving().certificate()).isNotEqualTo(before);
      time.set(now);
      serving.check();
      assertThat(presented(serving, endpoint)).isEqualTo(renewed.serving().certificate());
    }
  }

  /** The certificate a new client (no TLS session to resume) is presented. */
  /** Answers 200 without a body: the test reads only the certificate the endpoint presents. */
  private static final HttpHandler OK =
      ex -> {
        ex.sendResponseHeaders(200, -1);
        ex.close();
      };

  static X509Certificate presented(ServingCertificates serving, HttpsEndpoint endpoint)
      throws Exception {
    HttpClient http =
        HttpClient.newBuilder().sslContext(TrustedCa.sslContext(serving.caBundlePem())).build();
    return presented(http, endpoint);
  }

  static X509Certificate presented(HttpClient http, HttpsEndpoint endpoint) throws Exception {
    var response =
        http.send(
            HttpRequest.newBuilder(URI.create("https://localhost:" + endpoint.port() + "/r"))
                .build(),
            HttpResponse.BodyHandlers.discarding());
    assertThat(response.statusCode()).isEqualTo(200);
    return (X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0];
  }
}
