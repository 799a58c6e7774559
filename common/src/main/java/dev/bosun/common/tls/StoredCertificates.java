package dev.bosun.common.tls;

/** What an operator's TLS Secret holds, as read from the API server. */
public sealed interface StoredCertificates {

  /** No Secret yet. */
  record Absent() implements StoredCertificates {}

  /**
   * A Secret whose certificates or keys cannot be used.
   *
   * @param why what is wrong, as a sentence for the log
   */
  record Unreadable(String why) implements StoredCertificates {}

  /**
   * A Secret holding a CA and a serving certificate with their keys.
   *
   * @param bundle the certificates
   */
  record Present(CertificateBundle bundle) implements StoredCertificates {}
}
