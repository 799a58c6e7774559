package dev.bosun.common.transfer;

import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.tls.CertificatePolicy;
import dev.bosun.common.tls.CertificateSecretStore;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * An operator's one serving certificate, for every HTTPS endpoint it runs: the restore route and
 * the admission webhook share one Secret, one CA and one certificate carrying both Services' names.
 * Two certificates in one Secret would each find the other's names missing and be issued anew at
 * every check; two Secrets would be two CAs to hand out and renew.
 */
public final class OperatorCertificate {

  private OperatorCertificate() {}

  /**
   * The store of the certificate that {@code restore} and {@code webhook} (either may be absent)
   * serve; empty when neither is. Both name the same Secret in the same namespace, as the chart
   * sets them. {@code operator} is the operator's name, the Secret's manager.
   */
  public static Optional<CertificateSecretStore> store(
      KubernetesClient client,
      String operator,
      Clock clock,
      Optional<RestoreEndpoint> restore,
      Optional<WebhookSettings> webhook) {
    if (restore.isEmpty() && webhook.isEmpty()) {
      return Optional.empty();
    }
    String namespace =
        restore.map(RestoreEndpoint::namespace).orElseGet(() -> webhook.get().namespace());
    String secret =
        restore.map(RestoreEndpoint::tlsSecret).orElseGet(() -> webhook.get().tlsSecret());
    webhook.ifPresent(
        w -> {
          if (!w.namespace().equals(namespace) || !w.tlsSecret().equals(secret)) {
            throw new IllegalArgumentException(
                "the restore route and the admission webhook share one certificate, kept in the"
                    + " Secret "
                    + namespace
                    + "/"
                    + secret
                    + ", but the webhook names "
                    + w.namespace()
                    + "/"
                    + w.tlsSecret());
          }
        });
    return Optional.of(
        new CertificateSecretStore(
            client,
            namespace,
            secret,
            operator,
            dnsNames(restore, webhook),
            CertificatePolicy.DEFAULT,
            clock));
  }

  /** Every name the one certificate carries: the restore route's, then the webhook's. */
  static List<String> dnsNames(
      Optional<RestoreEndpoint> restore, Optional<WebhookSettings> webhook) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    restore.ifPresent(r -> names.addAll(r.dnsNames()));
    webhook.ifPresent(w -> names.addAll(w.dnsNames()));
    return new ArrayList<>(names);
  }
}
