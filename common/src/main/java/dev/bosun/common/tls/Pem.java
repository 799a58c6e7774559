package dev.bosun.common.tls;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/** PEM text of certificates and private keys (PKCS #8), as Secrets and {@code caBundle} hold it. */
public final class Pem {

  private Pem() {}

  /** The certificate as PEM. */
  public static String of(X509Certificate certificate) {
    return write(certificate);
  }

  /** The key as unencrypted PKCS #8 PEM ({@code PRIVATE KEY}). */
  public static String of(PrivateKey key) {
    try {
      return write(new JcaPKCS8Generator(key, null));
    } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
      throw new IllegalStateException("cannot encode a private key", e);
    }
  }

  private static String write(Object object) {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  /** Every certificate in {@code pem}, in order. */
  public static List<X509Certificate> certificates(String pem) throws CertificateException {
    List<X509Certificate> certificates = new ArrayList<>();
    for (Object o : objects(pem)) {
      if (o instanceof X509CertificateHolder holder) {
        certificates.add(new JcaX509CertificateConverter().getCertificate(holder));
      }
    }
    if (certificates.isEmpty()) {
      throw new CertificateException("no certificate in the PEM text");
    }
    return certificates;
  }

  /** The first certificate in {@code pem}. */
  public static X509Certificate certificate(String pem) throws CertificateException {
    return certificates(pem).get(0);
  }

  /** The private key in {@code pem}: PKCS #8, or a traditional EC or RSA key. */
  public static PrivateKey privateKey(String pem) throws CertificateException {
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    try {
      for (Object o : objects(pem)) {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return converter.getKeyPair(pair).getPrivate();
        }
      }
    } catch (org.bouncycastle.openssl.PEMException e) {
      throw new CertificateException("the private key cannot be read: " + e.getMessage(), e);
    }
    throw new CertificateException("no private key in the PEM text");
  }

  private static List<Object> objects(String pem) throws CertificateException {
    List<Object> objects = new ArrayList<>();
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        objects.add(o);
      }
    } catch (IOException e) {
      throw new CertificateException("not PEM text: " + e.getMessage(), e);
    }
    return objects;
  }
}
