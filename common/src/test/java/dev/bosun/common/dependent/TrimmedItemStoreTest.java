package dev.bosun.common.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrimmedItemStoreTest {

  private static final String OPERATOR = "bosun-test-operator";

  private static Map<String, Object> fields() {
    Map<String, Object> container = new LinkedHashMap<>();
    container.put(".", Map.of());
    container.put("f:image", Map.of());
    container.put("f:name", Map.of());
    return Map.of(
        "f:spec",
        Map.of(
            "f:replicas",
            Map.of(),
            "f:template",
            Map.of("f:spec", Map.of("f:containers", Map.of("k:{\"name\":\"app\"}", container)))));
  }

  private static Deployment applied() {
    FieldsV1 own = new FieldsV1();
    fields().forEach(own::setAdditionalProperty);
    FieldsV1 controller = new FieldsV1();
    controller.setAdditionalProperty("f:status", Map.of("f:replicas", Map.of()));
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("shop")
        .withNamespace("team")
        .withManagedFields(
            new ManagedFieldsEntryBuilder()
                .withManager(OPERATOR)
                .withOperation("Apply")
                .withFieldsType("FieldsV1")
                .withFieldsV1(own)
                .build(),
            new ManagedFieldsEntryBuilder()
                .withManager("kube-controller-manager")
                .withOperation("Update")
                .withFieldsV1(controller)
                .build())
        .endMetadata()
        .withNewSpec()
        .withReplicas(2)
        .endSpec()
        .build();
  }

  /** The store the managed dependents use: the operator's own entry, as text. */
  private static final class OwnFields extends TrimmedItemStore<Deployment> {
    OwnFields() {
      super(OPERATOR);
    }
  }

  @Test
  void keepsOnlyTheOperatorsEntryAndReadsItsFieldsBackUnchanged() {
    OwnFields store = new OwnFields();
    store.put("team/shop", applied());

    var kept = store.get("team/shop").getMetadata().getManagedFields();
    assertThat(kept).singleElement().satisfies(e -> assertThat(e.getManager()).isEqualTo(OPERATOR));
    assertThat(kept.get(0).getOperation()).isEqualTo("Apply");
    assertThat(kept.get(0).getFieldsV1()).isInstanceOf(CompactFieldsV1.class);
    assertThat(kept.get(0).getFieldsV1().getAdditionalProperties()).isEqualTo(fields());
  }

  @Test
  void theCachedObjectStillSerializesWithItsFields() {
    OwnFields store = new OwnFields();
    store.put("team/shop", applied());
    // JOSDK's matcher turns the cached object into a map before it compares.
    Map<?, ?> asMap = new KubernetesSerialization().convertValue(store.get("team/shop"), Map.class);
    Map<?, ?> metadata = (Map<?, ?>) asMap.get("metadata");
    Map<?, ?> entry = (Map<?, ?>) ((java.util.List<?>) metadata.get("managedFields")).get(0);
    assertThat(entry.get("fieldsV1")).isEqualTo(fields());
  }

  @Test
  void aSecondPutOfTheSameObjectKeepsItsFieldsAndTheTextIsReadOnly() {
    OwnFields store = new OwnFields();
    Deployment d = applied();
    store.put("team/shop", d);
    store.put("team/shop", d);
    FieldsV1 kept = store.get("team/shop").getMetadata().getManagedFields().get(0).getFieldsV1();
    assertThat(kept.getAdditionalProperties()).isEqualTo(fields());
    assertThatThrownBy(() -> kept.setAdditionalProperty("f:x", Map.of()))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void twoChildrenOfTheSameShapeShareTheirFieldSetAndMetadataStrings() {
    OwnFields store = new OwnFields();
    Deployment first = applied();
    first.getMetadata().setLabels(new LinkedHashMap<>(Map.of("app", new String("web"))));
    Deployment second = applied();
    second.getMetadata().setName("cart");
    second.getMetadata().setLabels(new LinkedHashMap<>(Map.of("app", new String("web"))));
    store.put("team/shop", first);
    store.put("team/cart", second);

    var shop = store.get("team/shop").getMetadata();
    var cart = store.get("team/cart").getMetadata();
    assertThat(((CompactFieldsV1) cart.getManagedFields().get(0).getFieldsV1()).json())
        .isSameAs(((CompactFieldsV1) shop.getManagedFields().get(0).getFieldsV1()).json());
    assertThat(cart.getLabels().get("app")).isSameAs(shop.getLabels().get("app"));
    assertThat(cart.getNamespace()).isSameAs(shop.getNamespace());
    assertThat(cart.getManagedFields().get(0).getManager())
        .isSameAs(shop.getManagedFields().get(0).getManager());
  }

  @Test
  void withoutAKeptManagerEveryEntryIsDropped() {
    TrimmedItemStore<Deployment> store = new TrimmedItemStore<>();
    store.put("team/shop", applied());
    assertThat(store.get("team/shop").getMetadata().getManagedFields()).isNull();
  }
}
