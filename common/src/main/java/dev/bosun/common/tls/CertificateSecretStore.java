package dev.bosun.common.tls;

import dev.bosun.common.status.HumanMessages;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an operator's certificates in one Secret of its own namespace: reads it, lets {@link
 * CertificatePlanner} decide, issues what is due and writes it back. Replicas race safely: a create
 * that finds the Secret already there, or an update that finds it changed, reads it again and plans
 * anew, so every replica ends up serving what the Secret holds.
 */
public final class CertificateSecretStore {

  private static final Logger LOG = LoggerFactory.getLogger(CertificateSecretStore.class);

  /** Reads and writes after a lost race before giving up (each race means another replica won). */
  static final int ATTEMPTS = 5;

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final String operator;
  private final List<String> dnsNames;
  private final CertificatePolicy policy;
  private final Clock clock;

  /**
   * @param client the operator's client
   * @param namespace the operator's own namespace
   * @param name the Secret's name
   * @param operator the operator's name (managed-by label, CA common name)
   * @param dnsNames the names clients use to reach the operator's HTTPS endpoints
   * @param policy validity and renewal
   * @param clock the time
   */
  public CertificateSecretStore(
      KubernetesClient client,
      String namespace,
      String name,
      String operator,
      List<String> dnsNames,
      CertificatePolicy policy,
      Clock clock) {
    if (dnsNames.isEmpty()) {
      throw new IllegalArgumentException("the serving certificate needs at least one DNS name");
    }
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.operator = operator;
    this.dnsNames = List.copyOf(dnsNames);
    this.policy = policy;
    this.clock = clock;
  }

  /** The certificates to serve now, issued and stored first when due. */
  public CertificateBundle ensure() {
    for (int attempt = 1; ; attempt++) {
      Secret current = client.secrets().inNamespace(namespace).withName(name).get();
      Instant now = clock.instant();
      var step = CertificatePlanner.plan(TlsSecrets.read(current), dnsNames, now, policy);
      if (step instanceof CertificatePlanner.Keep keep) {
        return keep.bundle();
      }
      CertificateBundle issued = issue(step, now);
      Secret desired = TlsSecrets.desired(namespace, name, operator, issued);
      try {
        if (current == null) {
          client.secrets().inNamespace(namespace).resource(desired).create();
        } else {
          // Optimistic: the update fails if another replica wrote the Secret since it was read.
          desired.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
          client.secrets().inNamespace(namespace).resource(desired).update();
        }
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT && attempt < ATTEMPTS) {
          continue;
        }
        throw new IllegalStateException(
            "cannot write the certificate Secret "
                + namespace
                + "/"
                + name
                + ": "
                + HumanMessages.describe(e),
            e);
      }
      LOG.info(
          "issued a serving certificate for {} valid until {} ({}); kept in Secret {}/{}",
          String.join(", ", dnsNames),
          issued.serving().notAfter(),
          reason(step),
          namespace,
          name);
      return issued;
    }
  }

  private CertificateBundle issue(CertificatePlanner.Step step, Instant now) {
    IssuedCertificate authority =
        step instanceof CertificatePlanner.IssueServing serving
            ? serving.authority()
            : CertificateIssuer.authority(operator + " CA", now, policy.authorityValidity());
    return new CertificateBundle(
        authority, CertificateIssuer.serving(authority, dnsNames, now, policy.servingValidity()));
  }

  private static String reason(CertificatePlanner.Step step) {
    if (step instanceof CertificatePlanner.IssueServing serving) {
      return serving.reason();
    }
    return ((CertificatePlanner.IssueAll) step).reason() + "; with a new CA";
  }
}
