package dev.bosun.common.admission;

import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.tls.HttpsEndpoint;
import dev.bosun.common.tls.ServingCertificates;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's validating admission webhook: its routes served over HTTPS with the certificate
 * kept in the operator's Secret, and the webhook configuration's {@code caBundle} kept on that
 * certificate's CA. Every replica runs one, leader or not, so the Service always has an endpoint.
 */
public final class AdmissionWebhook implements AutoCloseable {

  /** Request threads: reviews are small and checked in memory. */
  static final int THREADS = 4;

  private static final Logger LOG = LoggerFactory.getLogger(AdmissionWebhook.class);

  private final ServingCertificates certificates;
  private final boolean ownsCertificates;
  private final HttpsEndpoint endpoint;
  private final WebhookCaBundle caBundle;
  private volatile boolean closed;

  private AdmissionWebhook(
      ServingCertificates certificates,
      boolean ownsCertificates,
      HttpsEndpoint endpoint,
      WebhookCaBundle caBundle) {
    this.certificates = certificates;
    this.ownsCertificates = ownsCertificates;
    this.endpoint = endpoint;
    this.caBundle = caBundle;
  }

  /**
   * Reads (and the first time writes) the certificate Secret, serves {@code routes} (path to {@link
   * ValidatingRoute}) on the settings' port, and keeps the configuration's {@code caBundle} checked
   * every {@code caCheckEvery} (sooner while it is not current), until closed.
   */
  public static AdmissionWebhook start(
      KubernetesClient client,
      String operator,
      WebhookSettings settings,
      Map<String, HttpHandler> routes,
      Duration caCheckEvery) {
    ServingCertificates certificates =
        ServingCertificates.start(
            settings.certificates(client, operator, Clock.systemUTC()),
            ServingCertificates.CHECK_EVERY);
    try {
      return start(client, settings, certificates, true, routes, caCheckEvery);
    } catch (RuntimeException e) {
      certificates.close();
      throw e;
    }
  }

  /** The same, checking the caBundle every {@link WebhookCaBundle#CHECK_EVERY}. */
  public static AdmissionWebhook start(
      KubernetesClient client,
      String operator,
      WebhookSettings settings,
      Map<String, HttpHandler> routes) {
    return start(client, operator, settings, routes, WebhookCaBundle.CHECK_EVERY);
  }

  /**
   * The same on certificates the operator's other HTTPS endpoints serve too (one Secret, one CA,
   * one serving certificate carrying every Service's names), which the caller closes.
   */
  public static AdmissionWebhook start(
      KubernetesClient client,
      WebhookSettings settings,
      ServingCertificates shared,
      Map<String, HttpHandler> routes) {
    return start(client, settings, shared, false, routes, WebhookCaBundle.CHECK_EVERY);
  }

  private static AdmissionWebhook start(
      KubernetesClient client,
      WebhookSettings settings,
      ServingCertificates certificates,
      boolean owned,
      Map<String, HttpHandler> routes,
      Duration caCheckEvery) {
    HttpsEndpoint endpoint;
    try {
      endpoint =
          HttpsEndpoint.start(
              settings.port(), certificates.sslContext(), routes, THREADS, "admission-webhook");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve the admission webhook on port " + settings.port(), e);
    }
    LOG.info(
        "serving admission reviews over HTTPS on port {} for {}",
        endpoint.port(),
        settings.configuration());
    WebhookCaBundle bundle =
        WebhookCaBundle.keep(
            client,
            settings.configuration(),
            certificates::caBundlePem,
            certificates::check,
            caCheckEvery);
    // A CA this replica replaces must reach the API server now, not at the next check.
    certificates.whenCaChanges(bundle::checkSoon);
    return new AdmissionWebhook(certificates, owned, endpoint, bundle);
  }

  /**
   * Whether the API server can call this replica: it serves, and the configuration's caBundle was
   * this replica's CA at the last check. Until then its answers would fail the API server's TLS
   * check, and creates (which fail closed) would be refused.
   */
  public boolean ready() {
    return !closed && caBundle.current();
  }

  /**
   * Ties this webhook to {@code runtime}: it closes with the runtime, and the runtime reports ready
   * only while this webhook is, so that a Pod joins the webhook Service's endpoints, and a rolling
   * update or {@code helm install --wait} goes on, only once the API server can call it.
   */
  public OperatorRuntime servesFor(OperatorRuntime runtime) {
    return runtime.onClose(this).readyOnlyWhen(this::ready);
  }

  /** The port it listens on. */
  public int port() {
    return endpoint.port();
  }

  /** The CA the API server must trust, as PEM. */
  public String caBundlePem() {
    return certificates.caBundlePem();
  }

  @Override
  public void close() {
    closed = true;
    caBundle.close();
    endpoint.close();
    if (ownsCertificates) {
      certificates.close();
    }
  }
}
