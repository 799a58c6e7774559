package dev.bosun.common.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An HTTPS endpoint on loopback, and clients that trust or do not trust its CA. */
class HttpsEndpointTest {

  private static final HttpHandler OK =
      ex -> {
        byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        ex.close();
      };

  HttpsEndpoint endpoint;

  @AfterEach
  void stop() {
    if (endpoint != null) {
      endpoint.close();
    }
  }

  static CertificateBundle bundle(List<String> names) {
    Instant now = Instant.now();
    IssuedCertificate ca = CertificateIssuer.authority("test CA", now, Duration.ofDays(10));
    return new CertificateBundle(ca, CertificateIssuer.serving(ca, names, now, Duration.ofDays(1)));
  }

  HttpResponse<String> get(SSLContext trust, String scheme, String host) throws Exception {
    HttpClient client =
        HttpClient.newBuilder().sslContext(trust).connectTimeout(Duration.ofSeconds(5)).build();
    return client.send(
        HttpRequest.newBuilder(URI.create(scheme + "://" + host + ":" + endpoint.port() + "/r"))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aClientTrustingTheCaReachesTheRouteByANameOnTheCertificate() throws Exception {
    CertificateBundle bundle = bundle(List.of("localhost"));
    endpoint = HttpsEndpoint.start(0, bundle.serverContext(), Map.of("/r", OK), 2, "test-https");
    var response = get(TrustedCa.sslContext(bundle.caBundlePem()), "https", "localhost");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("ok");
    assertThat(response.sslSession().orElseThrow().getProtocol()).isIn("TLSv1.3", "TLSv1.2");
  }

  @Test
  void plainHttpGetsNoAnswer() throws Exception {
    CertificateBundle bundle = bundle(List.of("localhost"));
    endpoint = HttpsEndpoint.start(0, bundle.serverContext(), Map.of("/r", OK), 2, "test-https");
    assertThatThrownBy(() -> get(SSLContext.getDefault(), "http", "localhost"))
        .isInstanceOf(IOException.class);
  }

  @Test
  void aClientTrustingAnotherCaOrTheDefaultsRefusesTheServer() throws Exception {
    CertificateBundle bundle = bundle(List.of("localhost"));
    endpoint = HttpsEndpoint.start(0, bundle.serverContext(), Map.of("/r", OK), 2, "test-https");
    String otherCa = bundle(List.of("localhost")).caBundlePem();
    assertThatThrownBy(() -> get(TrustedCa.sslContext(otherCa), "https", "localhost"))
        .isInstanceOf(SSLHandshakeException.class);
    assertThatThrownBy(() -> get(SSLContext.getDefault(), "https", "localhost"))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void aNameNotOnTheCertificateIsRefusedEvenWithTheRightCa() throws Exception {
    CertificateBundle bundle = bundle(List.of("op-restore.ops.svc"));
    endpoint = HttpsEndpoint.start(0, bundle.serverContext(), Map.of("/r", OK), 2, "test-https");
    assertThatThrownBy(() -> get(TrustedCa.sslContext(bundle.caBundlePem()), "https", "localhost"))
        .isInstanceOf(SSLHandshakeException.class)
        .hasMessageContaining("localhost");
  }

  @Test
  void aBundleWithoutCertificatesIsNoTrust() {
    assertThatThrownBy(() -> TrustedCa.sslContext("not pem"))
        .isInstanceOf(GeneralSecurityException.class);
  }
}
