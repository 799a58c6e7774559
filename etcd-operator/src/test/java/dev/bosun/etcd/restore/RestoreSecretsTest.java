package dev.bosun.etcd.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.meta.Labels;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.objects.Owners;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RestoreSecretsTest {

  /** Stands for the operator's CA; the Secret carries it as it is. */
  static final String CA = "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n";

  static EtcdCluster cluster(String name) {
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace("team")
            .withUid("uid-" + name)
            .build());
    return c;
  }

  /** The Secret as the operator writes it, owner reference included. */
  static Secret written(String cluster, String key, String token) {
    EtcdCluster c = cluster(cluster);
    Secret s = RestoreSecrets.desired(c, key, token, CA);
    s.getMetadata().setOwnerReferences(Owners.of(c));
    return s;
  }

  @Test
  void theSecretCarriesTheTokenTheCaAndTheOneKeyItGrants() {
    Secret s = written("demo", "team/demo/nightly/1.db", "tok");

    assertThat(s.getMetadata().getName()).isEqualTo("demo-restore");
    assertThat(s.getMetadata().getNamespace()).isEqualTo("team");
    assertThat(s.getMetadata().getLabels())
        .containsEntry(Labels.MANAGED_BY, EtcdOperator.NAME)
        .containsEntry(Labels.INSTANCE, "demo");
    assertThat(RestoreSecrets.key(s)).contains("team/demo/nightly/1.db");
    assertThat(
            new String(
                Base64.getDecoder().decode(s.getData().get("token")), StandardCharsets.UTF_8))
        .isEqualTo("tok");
    assertThat(
            new String(
                Base64.getDecoder().decode(s.getData().get("ca.crt")), StandardCharsets.UTF_8))
        .isEqualTo(CA);
    assertThat(RestoreSecrets.isFor(s, "demo")).isTrue();
  }

  @Test
  void onlyTheSameTokenIsAccepted() {
    String token = RestoreSecrets.newToken();
    Secret s = written("demo", "team/demo/b/1.db", token);

    assertThat(RestoreSecrets.accepts(s, token)).isTrue();
    assertThat(RestoreSecrets.accepts(s, token.substring(1))).as("shorter").isFalse();
    assertThat(RestoreSecrets.accepts(s, token + "x")).as("longer").isFalse();
    char last = token.charAt(token.length() - 1);
    String oneOff = token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A');
    assertThat(RestoreSecrets.accepts(s, oneOff)).as("one character off").isFalse();
    assertThat(RestoreSecrets.accepts(s, "")).isFalse();
    assertThat(RestoreSecrets.accepts(s, null)).isFalse();
  }

  @Test
  void aSecretWithoutAUsableTokenAcceptsNothing() {
    Secret noData = new SecretBuilder(written("demo", "k/x", "t")).withData(null).build();
    Secret emptyToken =
        new SecretBuilder(written("demo", "k/x", "t")).withData(Map.of("token", "")).build();
    Secret notBase64 =
        new SecretBuilder(written("demo", "k/x", "t")).withData(Map.of("token", "%%%")).build();

    assertThat(RestoreSecrets.accepts(noData, "t")).isFalse();
    assertThat(RestoreSecrets.accepts(emptyToken, "")).isFalse();
    assertThat(RestoreSecrets.accepts(notBase64, "%%%")).isFalse();
  }

  @Test
  void tokensAreLongAndNeverRepeat() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String token = RestoreSecrets.newToken();
      assertThat(Base64.getUrlDecoder().decode(token)).hasSize(32);
      assertThat(seen.add(token)).isTrue();
    }
  }

  @Test
  void aSecretOfTheSameNameThatIsNotTheOperatorsIsIgnored() {
    Secret ours = written("demo", "team/demo/b/1.db", "t");
    Secret unlabelled =
        new SecretBuilder(ours).editMetadata().withLabels(Map.of()).endMetadata().build();
    Secret unowned =
        new SecretBuilder(ours).editMetadata().withOwnerReferences(List.of()).endMetadata().build();
    Secret otherOwner =
        new SecretBuilder(ours)
            .editMetadata()
            .withOwnerReferences(Owners.of(cluster("other")))
            .endMetadata()
            .build();

    assertThat(RestoreSecrets.isFor(ours, "demo")).isTrue();
    assertThat(RestoreSecrets.isFor(unlabelled, "demo")).isFalse();
    assertThat(RestoreSecrets.isFor(unowned, "demo")).isFalse();
    assertThat(RestoreSecrets.isFor(otherOwner, "demo")).isFalse();
    assertThat(RestoreSecrets.isFor(ours, "other")).isFalse();
  }

  @Test
  void aSecretWithoutAKeyGrantsNoFile() {
    Secret s =
        new SecretBuilder(written("demo", "k/x", "t"))
            .editMetadata()
            .withAnnotations(Map.of())
            .endMetadata()
            .build();
    assertThat(RestoreSecrets.key(s)).isEmpty();
  }
}
