package dev.bosun.common.tls;

import dev.bosun.common.meta.Labels;
import dev.bosun.common.meta.SecretValues;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Secret (type {@code kubernetes.io/tls}) in which an operator keeps its CA and serving
 * certificate: {@code tls.crt} and {@code tls.key} as every TLS Secret has them, plus {@code
 * ca.crt} and the CA's key {@code ca.key}, so that any replica can sign the next serving
 * certificate.
 */
public final class TlsSecrets {

  public static final String SERVING_CERT = "tls.crt";
  public static final String SERVING_KEY = "tls.key";
  public static final String CA_CERT = "ca.crt";
  public static final String CA_KEY = "ca.key";

  /** The Secret's component label. */
  public static final String COMPONENT = "serving-certificate";

  private TlsSecrets() {}

  /** What {@code secret} (null: none) holds. */
  public static StoredCertificates read(Secret secret) {
    if (secret == null) {
      return new StoredCertificates.Absent();
    }
    Optional<String> caCert = SecretValues.value(secret, CA_CERT);
    Optional<String> caKey = SecretValues.value(secret, CA_KEY);
    Optional<String> cert = SecretValues.value(secret, SERVING_CERT);
    Optional<String> key = SecretValues.value(secret, SERVING_KEY);
    if (caCert.isEmpty() || caKey.isEmpty() || cert.isEmpty() || key.isEmpty()) {
      return new StoredCertificates.Unreadable(
          "it needs " + String.join(", ", CA_CERT, CA_KEY, SERVING_CERT, SERVING_KEY));
    }
    try {
      return new StoredCertificates.Present(
          new CertificateBundle(
              new IssuedCertificate(Pem.certificate(caCert.get()), Pem.privateKey(caKey.get())),
              new IssuedCertificate(Pem.certificate(cert.get()), Pem.privateKey(key.get()))));
    } catch (CertificateException e) {
      return new StoredCertificates.Unreadable(e.getMessage());
    }
  }

  /**
   * The Secret {@code namespace}/{@code name} holding {@code bundle}, labelled as managed by {@code
   * operator}.
   */
  public static Secret desired(
      String namespace, String name, String operator, CertificateBundle bundle) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(SERVING_CERT, base64(Pem.of(bundle.serving().certificate())));
    data.put(SERVING_KEY, base64(Pem.of(bundle.serving().key())));
    data.put(CA_CERT, base64(bundle.caBundlePem()));
    data.put(CA_KEY, base64(Pem.of(bundle.authority().key())));
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(Labels.NAME, operator);
    labels.put(Labels.COMPONENT, COMPONENT);
    labels.put(Labels.MANAGED_BY, operator);
    labels.put(Labels.PART_OF, Labels.PLATFORM);
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withType("kubernetes.io/tls")
        .withData(data)
        .build();
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
