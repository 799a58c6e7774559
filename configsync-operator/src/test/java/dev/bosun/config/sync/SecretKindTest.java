package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretKindTest {

  private final SecretKind kind = new SecretKind();

  private static Secret source() {
    return new SecretBuilder()
        .withNewMetadata()
        .withName("db-credentials")
        .withNamespace("src")
        .withResourceVersion("7")
        .withUid("uid-1")
        .addToLabels("config.bosun.dev/sync-source", "true")
        .addToAnnotations("config.bosun.dev/allow-sync-to", "dest")
        .addNewOwnerReference()
        .withApiVersion("v1")
        .withKind("ServiceAccount")
        .withName("owner")
        .withUid("uid-owner")
        .endOwnerReference()
        .endMetadata()
        .withType("kubernetes.io/basic-auth")
        .addToData("username", "YWRtaW4=")
        .addToData("password", "czNjcjN0")
        .build();
  }

  @Test
  void identity() {
    assertThat(kind.type()).isEqualTo(Secret.class);
    assertThat(kind.syncKind()).isEqualTo("SecretSync");
  }

  @Test
  void hashCoversTypeAndData() {
    String base = kind.hash(source());

    Secret typeChanged = source();
    typeChanged.setType("Opaque");
    Secret typeRemoved = source();
    typeRemoved.setType(null);
    Secret valueChanged = source();
    valueChanged.getData().put("password", "b3RoZXI=");
    Secret keyRemoved = source();
    keyRemoved.getData().remove("username");

    assertThat(kind.hash(typeChanged)).isNotEqualTo(base);
    assertThat(kind.hash(typeRemoved)).isNotEqualTo(base);
    assertThat(kind.hash(valueChanged)).isNotEqualTo(base);
    assertThat(kind.hash(keyRemoved)).isNotEqualTo(base);
    assertThat(base).matches("[0-9a-f]{32}");
  }

  @Test
  void hashIgnoresMetadataAndDataOrder() {
    Secret reordered =
        new SecretBuilder()
            .withNewMetadata()
            .withName("other")
            .withNamespace("elsewhere")
            .withResourceVersion("100")
            .endMetadata()
            .withType("kubernetes.io/basic-auth")
            .addToData("password", "czNjcjN0")
            .addToData("username", "YWRtaW4=")
            .build();

    assertThat(kind.hash(reordered)).isEqualTo(kind.hash(source()));
  }

  @Test
  void copyHasTheGivenIdentityAndTheSourcesContentOnly() {
    Map<String, String> labels = Map.of("config.bosun.dev/sync-name", "s");
    Map<String, String> annotations = Map.of("config.bosun.dev/source-hash", "abc");

    Secret copy = kind.copy(source(), "creds", "dest", labels, annotations);

    assertThat(copy.getMetadata().getName()).isEqualTo("creds");
    assertThat(copy.getMetadata().getNamespace()).isEqualTo("dest");
    assertThat(copy.getMetadata().getLabels()).containsExactlyInAnyOrderEntriesOf(labels);
    assertThat(copy.getMetadata().getAnnotations()).containsExactlyInAnyOrderEntriesOf(annotations);
    assertThat(copy.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(copy.getMetadata().getResourceVersion()).isNull();
    assertThat(copy.getMetadata().getUid()).isNull();
    assertThat(copy.getType()).isEqualTo("kubernetes.io/basic-auth");
    assertThat(copy.getData())
        .containsExactlyInAnyOrderEntriesOf(Map.of("username", "YWRtaW4=", "password", "czNjcjN0"));
    assertThat(kind.hash(copy)).isEqualTo(kind.hash(source()));
  }
}
