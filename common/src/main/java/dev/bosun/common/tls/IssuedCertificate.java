package dev.bosun.common.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;

/**
 * A certificate with its private key.
 *
 * @param certificate the certificate
 * @param key its private key
 */
public record IssuedCertificate(X509Certificate certificate, PrivateKey key) {

  /** When the certificate stops being valid. */
  public Instant notAfter() {
    return certificate.getNotAfter().toInstant();
  }
}
