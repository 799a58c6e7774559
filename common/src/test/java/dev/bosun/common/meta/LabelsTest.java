package dev.bosun.common.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelsTest {

  private static final ConfigMap OWNER =
      new ConfigMapBuilder()
          .withNewMetadata()
          .withName("shop")
          .withNamespace("ns")
          .endMetadata()
          .build();

  @Test
  void fullLabelSetOfAChild() {
    Map<String, String> labels = Labels.of(OWNER, "webservice", "server", "my-operator");

    assertThat(labels)
        .containsExactly(
            Map.entry("app.kubernetes.io/name", "webservice"),
            Map.entry("app.kubernetes.io/instance", "shop"),
            Map.entry("app.kubernetes.io/component", "server"),
            Map.entry("app.kubernetes.io/managed-by", "my-operator"),
            Map.entry("app.kubernetes.io/part-of", "bosun"));
  }

  @Test
  void selectorIsTheStableSubsetOfTheLabels() {
    Map<String, String> labels = Labels.of(OWNER, "webservice", "server", "my-operator");
    Map<String, String> selector = Labels.selector(OWNER, "webservice", "server");

    assertThat(selector)
        .containsExactly(
            Map.entry(Labels.NAME, "webservice"),
            Map.entry(Labels.INSTANCE, "shop"),
            Map.entry(Labels.COMPONENT, "server"));
    assertThat(labels).containsAllEntriesOf(selector);
    assertThat(selector).doesNotContainKeys(Labels.MANAGED_BY, Labels.PART_OF);
  }

  @Test
  void returnedMapsAreFreshAndMutable() {
    Map<String, String> first = Labels.of(OWNER, "a", "b", "c");
    first.put("extra", "x");

    assertThat(Labels.of(OWNER, "a", "b", "c")).doesNotContainKey("extra");
    Map<String, String> selector = Labels.selector(OWNER, "a", "b");
    selector.put("extra", "x");
    assertThat(Labels.selector(OWNER, "a", "b")).doesNotContainKey("extra");
  }

  @Test
  void renderKeepsTheMapOrder() {
    Map<String, String> selector = new LinkedHashMap<>();
    selector.put("b", "2");
    selector.put("a", "1");
    selector.put("c", "3");

    assertThat(Labels.render(selector)).isEqualTo("b=2,a=1,c=3");
  }

  @Test
  void renderOfOneAndOfNone() {
    assertThat(Labels.render(Map.of("k", "v"))).isEqualTo("k=v");
    assertThat(Labels.render(Map.of())).isEmpty();
  }

  @Test
  void renderOfTheSelector() {
    assertThat(Labels.render(Labels.selector(OWNER, "webservice", "server")))
        .isEqualTo(
            "app.kubernetes.io/name=webservice,app.kubernetes.io/instance=shop,"
                + "app.kubernetes.io/component=server");
  }

  @Test
  void aChildMapsToTheOwnerNamedByItsInstanceLabel() {
    var pod =
        new io.fabric8.kubernetes.api.model.PodBuilder()
            .withNewMetadata()
            .withName("shop-7d9c-x2")
            .withNamespace("team-a")
            .addToLabels(Labels.INSTANCE, "shop")
            .endMetadata()
            .build();

    assertThat(
            Labels.<io.fabric8.kubernetes.api.model.Pod>toInstanceOwner().toPrimaryResourceIDs(pod))
        .containsExactly(
            new io.javaoperatorsdk.operator.processing.event.ResourceID("shop", "team-a"));
  }
}
