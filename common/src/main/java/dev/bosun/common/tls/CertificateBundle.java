package dev.bosun.common.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * An operator's CA and the serving certificate it signed: what the TLS Secret holds, what its HTTPS
 * endpoints present, and (the CA alone) what clients trust.
 *
 * @param authority the self-signed CA with its key
 * @param serving the serving certificate with its key
 */
public record CertificateBundle(IssuedCertificate authority, IssuedCertificate serving) {

  /** The CA certificate as PEM: what a client trusts, and a webhook's {@code caBundle}. */
  public String caBundlePem() {
    return Pem.of(authority.certificate());
  }

  /** The chain the server presents: the serving certificate, then the CA. */
  public X509Certificate[] chain() {
    return new X509Certificate[] {serving.certificate(), authority.certificate()};
  }

  /**
   * A server context presenting this bundle's serving certificate for good (tests, tools); a
   * running operator serves {@link ServingCertificates#sslContext()}, which follows renewals.
   */
  public SSLContext serverContext() {
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("serving", serving.key(), new char[0], chain());
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(keys, new char[0]);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(factory.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a TLS context from a certificate bundle", e);
    }
  }

  /** The DNS names the serving certificate is valid for. */
  public List<String> dnsNames() {
    return dnsNames(serving.certificate());
  }

  static List<String> dnsNames(X509Certificate certificate) {
    List<String> names = new ArrayList<>();
    try {
      var alternatives = certificate.getSubjectAlternativeNames();
      if (alternatives != null) {
        for (List<?> name : alternatives) {
          // Type 2 is dNSName (RFC 5280).
          if (Integer.valueOf(2).equals(name.get(0))) {
            names.add((String) name.get(1));
          }
        }
      }
    } catch (CertificateParsingException e) {
      return List.of();
    }
    return names;
  }
}
