package dev.bosun.common.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class TlsSecretsTest {

  static final CertificateBundle BUNDLE =
      CertificatePlannerTest.issued(
          Duration.ofDays(1), Duration.ofDays(1), CertificatePlannerTest.NAMES);

  @Test
  void aWrittenSecretReadsBackAsTheSameCertificatesAndKeys() {
    Secret secret = TlsSecrets.desired("ops", "op-tls", "bosun-etcd-operator", BUNDLE);
    assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
    assertThat(secret.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "bosun-etcd-operator");
    assertThat(secret.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt", "ca.key");

    var read = (StoredCertificates.Present) TlsSecrets.read(secret);
    assertThat(read.bundle().authority().certificate()).isEqualTo(BUNDLE.authority().certificate());
    assertThat(read.bundle().authority().key()).isEqualTo(BUNDLE.authority().key());
    assertThat(read.bundle().serving().certificate()).isEqualTo(BUNDLE.serving().certificate());
    assertThat(read.bundle().serving().key()).isEqualTo(BUNDLE.serving().key());
    assertThat(read.bundle().dnsNames()).containsExactlyElementsOf(CertificatePlannerTest.NAMES);
  }

  @Test
  void noSecretIsAbsent() {
    assertThat(TlsSecrets.read(null)).isEqualTo(new StoredCertificates.Absent());
  }

  @Test
  void aSecretMissingAKeyOrHoldingNoPemIsUnreadable() {
    Secret full = TlsSecrets.desired("ops", "op-tls", "op", BUNDLE);
    Secret noCaKey = new SecretBuilder(full).removeFromData("ca.key").build();
    assertThat(TlsSecrets.read(noCaKey))
        .isEqualTo(new StoredCertificates.Unreadable("it needs ca.crt, ca.key, tls.crt, tls.key"));
    Secret garbage =
        new SecretBuilder(full)
            .addToData("tls.crt", Base64.getEncoder().encodeToString("hello".getBytes()))
            .build();
    assertThat(TlsSecrets.read(garbage))
        .isEqualTo(new StoredCertificates.Unreadable("no certificate in the PEM text"));
    Secret keySwapped =
        new SecretBuilder(full).addToData("tls.key", full.getData().get("tls.crt")).build();
    assertThat(TlsSecrets.read(keySwapped))
        .isEqualTo(new StoredCertificates.Unreadable("no private key in the PEM text"));
  }
}
