package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigMapKindTest {

  private final ConfigMapKind kind = new ConfigMapKind();

  private static ConfigMap source() {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("app-config")
        .withNamespace("src")
        .withResourceVersion("42")
        .withUid("uid-1")
        .withGeneration(3L)
        .addToLabels("config.bosun.dev/sync-source", "true")
        .addToLabels("team", "a")
        .addToAnnotations("config.bosun.dev/allow-sync-to", "*")
        .addNewOwnerReference()
        .withApiVersion("v1")
        .withKind("Pod")
        .withName("owner")
        .withUid("uid-owner")
        .endOwnerReference()
        .addToFinalizers("example.com/keep")
        .endMetadata()
        .addToData("app.properties", "a=1")
        .addToData("log.level", "info")
        .addToBinaryData("logo.png", "iVBORw0KGgo=")
        .build();
  }

  @Test
  void identity() {
    assertThat(kind.type()).isEqualTo(ConfigMap.class);
    assertThat(kind.syncKind()).isEqualTo("ConfigMapSync");
  }

  @Test
  void hashCoversDataAndBinaryData() {
    String base = kind.hash(source());

    ConfigMap dataChanged = source();
    dataChanged.getData().put("log.level", "debug");
    ConfigMap binaryChanged = source();
    binaryChanged.getBinaryData().put("logo.png", "AAAA");
    ConfigMap binaryRemoved = source();
    binaryRemoved.setBinaryData(null);
    ConfigMap dataKeyAdded = source();
    dataKeyAdded.getData().put("extra", "");

    assertThat(kind.hash(dataChanged)).isNotEqualTo(base);
    assertThat(kind.hash(binaryChanged)).isNotEqualTo(base);
    assertThat(kind.hash(binaryRemoved)).isNotEqualTo(base);
    assertThat(kind.hash(dataKeyAdded)).isNotEqualTo(base);
    assertThat(base).matches("[0-9a-f]{32}");
  }

  @Test
  void theSameEntryInDataOrInBinaryDataHashesDifferently() {
    ConfigMap inData = new ConfigMapBuilder().addToData("k", "AAAA").build();
    ConfigMap inBinary = new ConfigMapBuilder().addToBinaryData("k", "AAAA").build();

    assertThat(kind.hash(inData)).isNotEqualTo(kind.hash(inBinary));
  }

  @Test
  void hashIgnoresMetadata() {
    ConfigMap other =
        new ConfigMapBuilder(source())
            .editMetadata()
            .withName("renamed")
            .withNamespace("elsewhere")
            .withResourceVersion("99")
            .withLabels(Map.of("x", "y"))
            .withAnnotations(Map.of())
            .endMetadata()
            .build();

    assertThat(kind.hash(other)).isEqualTo(kind.hash(source()));
  }

  @Test
  void nullAndEmptyContentHashEqual() {
    assertThat(kind.hash(new ConfigMap()))
        .isEqualTo(
            kind.hash(new ConfigMapBuilder().withData(Map.of()).withBinaryData(Map.of()).build()));
  }

  @Test
  void copyHasTheGivenIdentityAndTheSourcesContentOnly() {
    Map<String, String> labels =
        Map.of("app.kubernetes.io/managed-by", "bosun-configsync-operator");
    Map<String, String> annotations = Map.of("config.bosun.dev/source", "src/app-config");

    ConfigMap copy = kind.copy(source(), "target", "dest", labels, annotations);

    assertThat(copy.getMetadata().getName()).isEqualTo("target");
    assertThat(copy.getMetadata().getNamespace()).isEqualTo("dest");
    assertThat(copy.getMetadata().getLabels()).containsExactlyInAnyOrderEntriesOf(labels);
    assertThat(copy.getMetadata().getAnnotations()).containsExactlyInAnyOrderEntriesOf(annotations);
    assertThat(copy.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(copy.getMetadata().getFinalizers()).isNullOrEmpty();
    assertThat(copy.getMetadata().getResourceVersion()).isNull();
    assertThat(copy.getMetadata().getUid()).isNull();
    assertThat(copy.getMetadata().getGeneration()).isNull();
    assertThat(copy.getData())
        .containsExactlyInAnyOrderEntriesOf(Map.of("app.properties", "a=1", "log.level", "info"));
    assertThat(copy.getBinaryData())
        .containsExactlyInAnyOrderEntriesOf(Map.of("logo.png", "iVBORw0KGgo="));
    assertThat(kind.hash(copy)).isEqualTo(kind.hash(source()));
  }

  @Test
  void copyDoesNotShareMutableStateWithTheSource() {
    ConfigMap source = source();
    ConfigMap copy = kind.copy(source, "target", "dest", Map.of("l", "1"), Map.of("a", "1"));

    source.getData().put("log.level", "debug");
    source.getMetadata().getLabels().put("l", "changed");

    assertThat(copy.getData()).containsEntry("log.level", "info");
    assertThat(copy.getMetadata().getLabels()).containsExactlyEntriesOf(Map.of("l", "1"));
  }
}
