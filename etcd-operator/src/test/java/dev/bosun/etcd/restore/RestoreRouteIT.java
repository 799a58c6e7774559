package dev.bosun.etcd.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.meta.SecretValues;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.tls.ServiceDnsNames;
import dev.bosun.common.tls.TrustedCa;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.Main;
import dev.bosun.etcd.testing.EtcdUnderTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The restore route as Main serves it: on its own port, TLS only, with the certificate the operator
 * keeps in a Secret of its namespace, valid for the restore Service's names; the plain HTTP metrics
 * port no longer serves it.
 */
@ExtendWith(ControlPlaneExtension.class)
class RestoreRouteIT {

  static final int PORT = LocalProcess.freePort("127.0.0.1");
  static final String SERVICE_NAME =
      EtcdUnderTest.RESTORE_SERVICE + "." + EtcdUnderTest.OPERATOR_NAMESPACE + ".svc";

  static RunningOperator operator;

  @BeforeAll
  static void start() {
    operator =
        new RunningOperator(
                EtcdOperator.NAME,
                (settings, running) ->
                    Main.create(
                        settings,
                        running.client,
                        EtcdUnderTest.ADDRESSING,
                        Optional.of(EtcdUnderTest.BACKUP_DIR),
                        Optional.of(EtcdUnderTest.restoreEndpoint(PORT)),
                        Optional.empty(),
                        running.reconciles,
                        UnaryOperator.identity()),
                EtcdUnderTest.CRDS)
            .servingHttp()
            .start();
  }

  @AfterAll
  static void stop() {
    operator.close();
  }

  /** The CA as member Pods get it: from the operator's certificate Secret. */
  static String ca() {
    var secret =
        operator
            .testClient
            .secrets()
            .inNamespace(EtcdUnderTest.OPERATOR_NAMESPACE)
            .withName(EtcdUnderTest.TLS_SECRET)
            .get();
    assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
    return SecretValues.value(secret, "ca.crt").orElseThrow();
  }

  /**
   * The certificate the route presents to a client that connects to loopback but verifies the
   * server as {@code name} (what a Pod resolving the Service name would reach).
   */
  static X509Certificate handshake(SSLContext trust, String name) throws IOException {
    Socket plain = new Socket(InetAddress.getLoopbackAddress(), PORT);
    try (SSLSocket tls =
        (SSLSocket) trust.getSocketFactory().createSocket(plain, name, PORT, true)) {
      SSLParameters params = tls.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      tls.setSSLParameters(params);
      tls.startHandshake();
      return (X509Certificate) tls.getSession().getPeerCertificates()[0];
    }
  }

  static HttpResponse<String> get(SSLContext trust, URI url) throws Exception {
    HttpClient http =
        HttpClient.newBuilder().sslContext(trust).connectTimeout(Duration.ofSeconds(5)).build();
    return http.send(
        HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theRouteAnswersOverTlsWithACertificateForTheServiceNamesThatVerifiesAgainstTheCa()
      throws Exception {
    SSLContext trust = TrustedCa.sslContext(ca());

    X509Certificate served = handshake(trust, SERVICE_NAME);
    List<String> names = new ArrayList<>();
    for (List<?> san : served.getSubjectAlternativeNames()) {
      names.add((String) san.get(1));
    }
    assertThat(names)
        .containsAll(
            ServiceDnsNames.of(EtcdUnderTest.RESTORE_SERVICE, EtcdUnderTest.OPERATOR_NAMESPACE));
    assertThatThrownBy(() -> handshake(trust, "someone-else.default.svc"))
        .as("a name not on the certificate")
        .isInstanceOf(SSLHandshakeException.class);
    assertThatThrownBy(() -> handshake(SSLContext.getDefault(), SERVICE_NAME))
        .as("a client that does not trust the operator's CA")
        .isInstanceOf(SSLHandshakeException.class);

    // The route itself answers over TLS (no such restore here).
    var response =
        get(trust, URI.create("https://localhost:" + PORT + SnapshotRoute.PATH + "/team/demo"));
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.body()).isEqualTo("no such restore\n");
  }

  @Test
  void plainHttpGetsNoAnswerOnTheRestorePortAndTheMetricsPortHasNoRestoreRoute() throws Exception {
    assertThatThrownBy(
            () ->
                get(
                    SSLContext.getDefault(),
                    URI.create("http://localhost:" + PORT + SnapshotRoute.PATH + "/team/demo")))
        .isInstanceOf(IOException.class);

    var metrics =
        get(
            SSLContext.getDefault(),
            URI.create(operator.operatorUrl() + SnapshotRoute.PATH + "/team/demo"));
    assertThat(metrics.statusCode()).isEqualTo(404);
    assertThat(metrics.body())
        .as("the JDK server's own 404: no such context")
        .doesNotContain("restore");
    assertThat(
            get(SSLContext.getDefault(), URI.create(operator.operatorUrl() + "/healthz"))
                .statusCode())
        .as("the probes stay on plain HTTP")
        .isEqualTo(200);
  }

  @Test
  void aRestartedOperatorServesTheCertificateItKeptInItsSecret() throws Exception {
    SSLContext trust = TrustedCa.sslContext(ca());
    X509Certificate before = handshake(trust, SERVICE_NAME);

    operator.stop();
    operator.start();

    assertThat(handshake(TrustedCa.sslContext(ca()), SERVICE_NAME)).isEqualTo(before);
  }
}
