package dev.bosun.common.tls;

import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides, from what the TLS Secret holds, the DNS names the endpoints answer to and the time,
 * whether an operator keeps its certificates, issues a new serving certificate under its CA, or
 * starts over with a new CA. Pure: issuing and writing are the caller's.
 */
public final class CertificatePlanner {

  /** What to do with the stored certificates. */
  public sealed interface Step {}

  /**
   * Serve the stored certificates as they are.
   *
   * @param bundle the certificates
   */
  public record Keep(CertificateBundle bundle) implements Step {}

  /**
   * Sign a new serving certificate with the stored CA, which clients keep trusting.
   *
   * @param authority the CA
   * @param reason why, as a sentence for the log
   */
  public record IssueServing(IssuedCertificate authority, String reason) implements Step {}

  /**
   * Create a new CA and a serving certificate signed by it; clients must be given the new CA.
   *
   * @param reason why, as a sentence for the log
   */
  public record IssueAll(String reason) implements Step {}

  private CertificatePlanner() {}

  /** The step for {@code stored}, serving {@code dnsNames} at {@code now} under {@code policy}. */
  public static Step plan(
      StoredCertificates stored, List<String> dnsNames, Instant now, CertificatePolicy policy) {
    if (stored instanceof StoredCertificates.Present p) {
      return plan(p.bundle(), dnsNames, now, policy);
    }
    if (stored instanceof StoredCertificates.Unreadable u) {
      return new IssueAll("the stored certificate cannot be used (" + u.why() + ")");
    }
    return new IssueAll("there is no certificate yet");
  }

  private static Step plan(
      CertificateBundle bundle, List<String> dnsNames, Instant now, CertificatePolicy policy) {
    IssuedCertificate ca = bundle.authority();
    if (ca.certificate().getBasicConstraints() < 0) {
      return new IssueAll("the stored CA certificate is not a CA");
    }
    if (ca.notAfter().isBefore(now.plus(policy.authorityRenewBefore()))) {
      return new IssueAll("the CA expires on " + day(ca.notAfter()));
    }
    IssuedCertificate serving = bundle.serving();
    try {
      serving.certificate().verify(ca.certificate().getPublicKey());
    } catch (GeneralSecurityException e) {
      return new IssueServing(ca, "the serving certificate is not signed by the stored CA");
    }
    if (serving.notAfter().isBefore(now.plus(policy.servingRenewBefore()))) {
      return new IssueServing(ca, "the serving certificate expires on " + day(serving.notAfter()));
    }
    if (serving.certificate().getNotBefore().toInstant().isAfter(now)) {
      return new IssueServing(
          ca,
          "the serving certificate is not valid before " + serving.certificate().getNotBefore());
    }
    List<String> missing = new ArrayList<>(dnsNames);
    missing.removeAll(bundle.dnsNames());
    if (!missing.isEmpty()) {
      return new IssueServing(
          ca, "the serving certificate is not valid for " + String.join(", ", missing));
    }
    return new Keep(bundle);
  }

  private static LocalDate day(Instant instant) {
    return LocalDate.ofInstant(instant, ZoneOffset.UTC);
  }
}
