package dev.bosun.common.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A client's TLS context that trusts only the CAs of one PEM bundle (an operator's CA). */
public final class TrustedCa {

  private TrustedCa() {}

  /** A context trusting the certificates in {@code caBundlePem} and nothing else. */
  public static SSLContext sslContext(String caBundlePem) throws GeneralSecurityException {
    KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
    try {
      trusted.load(null, null);
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot create an empty key store", e);
    }
    int i = 0;
    for (X509Certificate ca : Pem.certificates(caBundlePem)) {
      trusted.setCertificateEntry("ca-" + i++, ca);
    }
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }
}
