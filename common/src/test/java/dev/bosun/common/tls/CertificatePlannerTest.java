package dev.bosun.common.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertificatePlannerTest {

  static final Instant NOW = Instant.parse("2026-11-27T10:00:00Z");
  static final List<String> NAMES = ServiceDnsNames.of("op-restore", "ops");
  static final CertificatePolicy POLICY = CertificatePolicy.DEFAULT;

  /** A CA issued {@code caAge} ago and a serving certificate issued {@code servingAge} ago. */
  static CertificateBundle issued(Duration caAge, Duration servingAge, List<String> names) {
    IssuedCertificate ca =
        CertificateIssuer.authority("test CA", NOW.minus(caAge), POLICY.authorityValidity());
    return new CertificateBundle(
        ca, CertificateIssuer.serving(ca, names, NOW.minus(servingAge), POLICY.servingValidity()));
  }

  static CertificatePlanner.Step plan(CertificateBundle bundle) {
    return CertificatePlanner.plan(new StoredCertificates.Present(bundle), NAMES, NOW, POLICY);
  }

  @Test
  void withoutASecretACaAndServingCertificateAreIssued() {
    assertThat(CertificatePlanner.plan(new StoredCertificates.Absent(), NAMES, NOW, POLICY))
        .isEqualTo(new CertificatePlanner.IssueAll("there is no certificate yet"));
  }

  @Test
  void anUnreadableSecretIsReplacedSayingWhy() {
    assertThat(
            CertificatePlanner.plan(
                new StoredCertificates.Unreadable("no private key in the PEM text"),
                NAMES,
                NOW,
                POLICY))
        .isEqualTo(
            new CertificatePlanner.IssueAll(
                "the stored certificate cannot be used (no private key in the PEM text)"));
  }

  @Test
  void aCertificateWithMoreThanThirtyDaysLeftIsKept() {
    CertificateBundle bundle = issued(Duration.ofDays(400), Duration.ofDays(334), NAMES);
    assertThat(plan(bundle)).isEqualTo(new CertificatePlanner.Keep(bundle));
  }

  @Test
  void aServingCertificateWithLessThanThirtyDaysLeftIsRenewedUnderTheSameCa() {
    CertificateBundle bundle = issued(Duration.ofDays(400), Duration.ofDays(336), NAMES);
    var step = plan(bundle);
    assertThat(step).isInstanceOf(CertificatePlanner.IssueServing.class);
    var renew = (CertificatePlanner.IssueServing) step;
    assertThat(renew.authority()).isEqualTo(bundle.authority());
    assertThat(renew.reason()).isEqualTo("the serving certificate expires on 2026-12-26");
  }

  @Test
  void anExpiredServingCertificateIsRenewed() {
    var step = plan(issued(Duration.ofDays(800), Duration.ofDays(400), NAMES));
    assertThat(step).isInstanceOf(CertificatePlanner.IssueServing.class);
  }

  @Test
  void aCaInItsLastYearIsReplacedWithItsServingCertificate() {
    var step = plan(issued(Duration.ofDays(3650 - 364), Duration.ofDays(10), NAMES));
    assertThat(step).isInstanceOf(CertificatePlanner.IssueAll.class);
    assertThat(((CertificatePlanner.IssueAll) step).reason()).startsWith("the CA expires on ");
    assertThat(plan(issued(Duration.ofDays(3650 - 366), Duration.ofDays(10), NAMES)))
        .isInstanceOf(CertificatePlanner.Keep.class);
  }

  @Test
  void aServingCertificateMissingANameIsReissuedNamingWhatIsMissing() {
    var step = plan(issued(Duration.ofDays(1), Duration.ofDays(1), NAMES.subList(0, 2)));
    assertThat(step)
        .isEqualTo(
            new CertificatePlanner.IssueServing(
                ((CertificatePlanner.IssueServing) step).authority(),
                "the serving certificate is not valid for op-restore.ops.svc,"
                    + " op-restore.ops.svc.cluster.local"));
  }

  @Test
  void extraNamesOnTheServingCertificateDoNotForceANewOne() {
    List<String> more = new java.util.ArrayList<>(NAMES);
    more.add("localhost");
    assertThat(plan(issued(Duration.ofDays(1), Duration.ofDays(1), more)))
        .isInstanceOf(CertificatePlanner.Keep.class);
  }

  @Test
  void aServingCertificateSignedByAnotherCaIsReissuedUnderTheStoredOne() {
    CertificateBundle ours = issued(Duration.ofDays(1), Duration.ofDays(1), NAMES);
    CertificateBundle theirs = issued(Duration.ofDays(1), Duration.ofDays(1), NAMES);
    var step = plan(new CertificateBundle(ours.authority(), theirs.serving()));
    assertThat(step)
        .isEqualTo(
            new CertificatePlanner.IssueServing(
                ours.authority(), "the serving certificate is not signed by the stored CA"));
  }

  @Test
  void aServingCertificateFromTheFutureIsReissued() {
    var step = plan(issued(Duration.ofDays(1), Duration.ofDays(-1), NAMES));
    assertThat(step).isInstanceOf(CertificatePlanner.IssueServing.class);
    assertThat(((CertificatePlanner.IssueServing) step).reason())
        .startsWith("the serving certificate is not valid before ");
  }

  @Test
  void aStoredCertificateThatIsNoCaIsReplaced() {
    CertificateBundle bundle = issued(Duration.ofDays(1), Duration.ofDays(1), NAMES);
    var step = plan(new CertificateBundle(bundle.serving(), bundle.serving()));
    assertThat(step)
        .isEqualTo(new CertificatePlanner.IssueAll("the stored CA certificate is not a CA"));
  }

  @Test
  void aServingCertificateNeverOutlivesItsCa() {
    IssuedCertificate ca = CertificateIssuer.authority("short CA", NOW, Duration.ofDays(10));
    IssuedCertificate serving = CertificateIssuer.serving(ca, NAMES, NOW, Duration.ofDays(365));
    assertThat(serving.notAfter()).isEqualTo(ca.notAfter());
  }

  @Test
  void aPolicyRenewingAtOrBeforeTheStartIsRefused() {
    assertThatThrownBy(
            () ->
                new CertificatePolicy(
                    Duration.ofDays(10),
                    Duration.ofDays(1),
                    Duration.ofDays(30),
                    Duration.ofDays(30)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
