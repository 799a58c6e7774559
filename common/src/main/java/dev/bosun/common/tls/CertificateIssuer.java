package dev.bosun.common.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Issues an operator's own self-signed CA and the serving certificates it signs, with Bouncy
 * Castle's X.509 builder: ECDSA P-256 keys, random 128-bit serial numbers, and a start five minutes
 * in the past so that a client whose clock is slightly behind still accepts a new certificate.
 */
public final class CertificateIssuer {

  /** How far before "now" a new certificate starts being valid (clock skew between machines). */
  static final Duration BACKDATE = Duration.ofMinutes(5);

  private static final SecureRandom RANDOM = new SecureRandom();

  private CertificateIssuer() {}

  /** A new self-signed CA named {@code commonName}, valid from now for {@code validity}. */
  public static IssuedCertificate authority(String commonName, Instant now, Duration validity) {
    KeyPair keys = newKeyPair();
    X500Name name = name(commonName);
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  name,
                  serial(),
                  Date.from(now.minus(BACKDATE)),
                  Date.from(now.plus(validity)),
                  name,
                  keys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  ext.createSubjectKeyIdentifier(keys.getPublic()));
      return sign(builder, keys, keys);
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a CA certificate", e);
    }
  }

  /**
   * A new serving certificate for {@code dnsNames} (the first is also its common name), signed by
   * {@code authority}, valid from now for {@code validity} but never beyond the CA.
   */
  public static IssuedCertificate serving(
      IssuedCertificate authority, List<String> dnsNames, Instant now, Duration validity) {
    if (dnsNames.isEmpty()) {
      throw new IllegalArgumentException("a serving certificate needs at least one DNS name");
    }
    KeyPair keys = newKeyPair();
    Instant end = now.plus(validity);
    if (end.isAfter(authority.notAfter())) {
      end = authority.notAfter();
    }
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  authority.certificate(),
                  serial(),
                  Date.from(now.minus(BACKDATE)),
                  Date.from(end),
                  name(dnsNames.get(0)),
                  keys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
              .addExtension(
                  Extension.extendedKeyUsage,
                  false,
                  new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
              .addExtension(
                  Extension.subjectAlternativeName,
                  false,
                  new GeneralNames(
                      dnsNames.stream()
                          .map(n -> new GeneralName(GeneralName.dNSName, n))
                          .toArray(GeneralName[]::new)))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  ext.createSubjectKeyIdentifier(keys.getPublic()))
              .addExtension(
                  Extension.authorityKeyIdentifier,
                  false,
                  ext.createAuthorityKeyIdentifier(authority.certificate()));
      return sign(
          builder, keys, new KeyPair(authority.certificate().getPublicKey(), authority.key()));
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a serving certificate", e);
    }
  }

  private static IssuedCertificate sign(
      X509v3CertificateBuilder builder, KeyPair subject, KeyPair issuer)
      throws GeneralSecurityException {
    try {
      var signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate());
      var certificate = new JcaX509CertificateConverter().getCertificate(builder.build(signer));
      return new IssuedCertificate(certificate, subject.getPrivate());
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("no ECDSA signer", e);
    }
  }

  private static X500Name name(String commonName) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
  }

  private static BigInteger serial() {
    return new BigInteger(128, RANDOM).setBit(127);
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java runtime has EC keys on P-256", e);
    }
  }
}
