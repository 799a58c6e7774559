package dev.bosun.common.tls;

import java.time.Duration;

/**
 * How long an operator's certificates live and how early they are replaced.
 *
 * @param authorityValidity lifetime of a new CA
 * @param authorityRenewBefore a CA with less than this left is replaced (with a new serving
 *     certificate)
 * @param servingValidity lifetime of a new serving certificate
 * @param servingRenewBefore a serving certificate with less than this left is replaced
 */
public record CertificatePolicy(
    Duration authorityValidity,
    Duration authorityRenewBefore,
    Duration servingValidity,
    Duration servingRenewBefore) {

  /** A 10-year CA replaced in its last year; a 1-year serving certificate renewed 30 days early. */
  public static final CertificatePolicy DEFAULT =
      new CertificatePolicy(
          Duration.ofDays(3650), Duration.ofDays(365), Duration.ofDays(365), Duration.ofDays(30));

  public CertificatePolicy {
    if (authorityRenewBefore.compareTo(authorityValidity) >= 0
        || servingRenewBefore.compareTo(servingValidity) >= 0) {
      throw new IllegalArgumentException(
          "a certificate must be renewed before the end of its validity, not at its start");
    }
  }
}
