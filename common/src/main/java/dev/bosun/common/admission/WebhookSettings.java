package dev.bosun.common.admission;

import dev.bosun.common.tls.CertificatePolicy;
import dev.bosun.common.tls.CertificateSecretStore;
import dev.bosun.common.tls.ServiceDnsNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where an operator serves its admission webhook, as its chart sets it: the HTTPS port, the
 * ValidatingWebhookConfiguration whose {@code caBundle} it keeps, and the Secret of its own
 * namespace that keeps the certificate for the Service the API server calls.
 *
 * @param port the port the webhook listens on (0: any free port)
 * @param configuration the ValidatingWebhookConfiguration's name
 * @param namespace the operator's own namespace, where the certificate Secret is
 * @param tlsSecret the certificate Secret's name
 * @param dnsNames the names the serving certificate carries (the Service's, as the API server calls
 *     it)
 */
public record WebhookSettings(
    int port, String configuration, String namespace, String tlsSecret, List<String> dnsNames) {

  /** The ValidatingWebhookConfiguration to keep; unset: no webhook is served. */
  public static final String CONFIGURATION = "BOSUN_WEBHOOK_CONFIGURATION";

  /** The webhook's HTTPS port. */
  public static final String PORT = "BOSUN_WEBHOOK_PORT";

  /** The Service the API server calls the webhook through; its DNS names go on the cert. */
  public static final String SERVICE = "BOSUN_WEBHOOK_SERVICE";

  /** The Secret in the operator's namespace that keeps its CA and serving certificate. */
  public static final String TLS_SECRET = "BOSUN_TLS_SECRET";

  /** The operator's own namespace. */
  public static final String NAMESPACE = "BOSUN_OPERATOR_NAMESPACE";

  /** The webhook port unless the environment says otherwise. */
  public static final int DEFAULT_PORT = 9443;

  public WebhookSettings {
    if (dnsNames.isEmpty()) {
      throw new IllegalArgumentException("the webhook's certificate needs at least one DNS name");
    }
    dnsNames = List.copyOf(dnsNames);
  }

  /** The webhook the environment describes; empty without {@value #CONFIGURATION}. */
  public static Optional<WebhookSettings> fromEnvironment(Map<String, String> env) {
    String configuration = env.getOrDefault(CONFIGURATION, "").trim();
    if (configuration.isEmpty()) {
      return Optional.empty();
    }
    String namespace = require(env, NAMESPACE);
    String port = env.getOrDefault(PORT, "").trim();
    try {
      return Optional.of(
          new WebhookSettings(
              port.isEmpty() ? DEFAULT_PORT : Integer.parseInt(port),
              configuration,
              namespace,
              require(env, TLS_SECRET),
              ServiceDnsNames.of(require(env, SERVICE), namespace)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PORT + " must be a port number: " + port, e);
    }
  }

  private static String require(Map<String, String> env, String name) {
    String value = env.getOrDefault(name, "").trim();
    if (value.isEmpty()) {
      throw new IllegalArgumentException(
          CONFIGURATION + " is set, so " + name + " must be set too");
    }
    return value;
  }

  /** The store of the webhook's certificate, written through {@code client}. */
  public CertificateSecretStore certificates(
      KubernetesClient client, String operator, Clock clock) {
    return new CertificateSecretStore(
        client, namespace, tlsSecret, operator, dnsNames, CertificatePolicy.DEFAULT, clock);
  }
}
