package dev.bosun.common.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactObjectsTest {

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  /** A Deployment as a watch event brings it: every string a new copy. */
  private static Deployment read(String name) {
    Deployment d =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("team")
            .addToLabels("app", "web")
            .endMetadata()
            .withNewSpec()
            .withReplicas(2)
            .withNewSelector()
            .addToMatchLabels("app", "web")
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", "web")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("registry.example.com/shop:1.0")
            .withImagePullPolicy("IfNotPresent")
            .addNewPort()
            .withName("http")
            .withContainerPort(8080)
            .withProtocol("TCP")
            .endPort()
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .withNewStatus()
            .addNewCondition()
            .withType("Available")
            .withStatus("True")
            .withReason("MinimumReplicasAvailable")
            .endCondition()
            .endStatus()
            .build();
    return JSON.unmarshal(JSON.asJson(d), Deployment.class);
  }

  private static Deployment compacted(String name) {
    Deployment d = read(name);
    CompactObjects.compact(d);
    return d;
  }

  @Test
  void theObjectIsUnchangedInContentAndInItsJson() {
    Deployment d = read("shop");
    Deployment before = read("shop");
    CompactObjects.compact(d);
    assertThat(d).isEqualTo(before);
    assertThat(JSON.asJson(d)).isEqualTo(JSON.asJson(before));
  }

  @Test
  void twoObjectsShareTheirStringsAllTheWayDown() {
    Deployment shop = compacted("shop");
    Deployment cart = compacted("cart");

    var shopContainer = shop.getSpec().getTemplate().getSpec().getContainers().get(0);
    var cartContainer = cart.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(cartContainer.getImage()).isSameAs(shopContainer.getImage());
    assertThat(cartContainer.getImagePullPolicy()).isSameAs(shopContainer.getImagePullPolicy());
    assertThat(cartContainer.getPorts().get(0).getProtocol())
        .isSameAs(shopContainer.getPorts().get(0).getProtocol());
    assertThat(cart.getSpec().getSelector().getMatchLabels().get("app"))
        .isSameAs(shop.getSpec().getSelector().getMatchLabels().get("app"));
    assertThat(cart.getStatus().getConditions().get(0).getReason())
        .isSameAs(shop.getStatus().getConditions().get(0).getReason());
    assertThat(cart.getMetadata().getNamespace()).isSameAs(shop.getMetadata().getNamespace());
  }

  @Test
  void emptyCollectionsAreOneSharedReadOnlyCollection() {
    Deployment shop = compacted("shop");
    Deployment cart = compacted("cart");

    var shopPod = shop.getSpec().getTemplate().getSpec();
    var cartPod = cart.getSpec().getTemplate().getSpec();
    assertThat(cartPod.getAdditionalProperties()).isSameAs(shopPod.getAdditionalProperties());
    assertThat(cartPod.getAdditionalProperties()).isEmpty();
    assertThat(cartPod.getVolumes()).isSameAs(shopPod.getVolumes());
    assertThat(cartPod.getVolumes()).isEmpty();
    assertThat(cart.getMetadata().getAdditionalProperties())
        .isSameAs(shop.getMetadata().getAdditionalProperties());
    // A cached object is only read; changing one by mistake fails instead of corrupting the cache.
    assertThatThrownBy(() -> cartPod.getVolumes().add(null))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void genericObjectsAreWalkedThroughTheirMapsAndLists() {
    GenericKubernetesResource shop = budget("shop");
    GenericKubernetesResource cart = budget("cart");
    CompactObjects.compact(shop);
    CompactObjects.compact(cart);
    assertThat(selectorValue(cart)).isEqualTo("web").isSameAs(selectorValue(shop));
  }

  @Test
  void readOnlyCollectionsBuiltInCodeAreLeftAsTheyAreAndLongStringsAreNotShared() {
    String longValue = new String("x".repeat(CompactObjects.LONGEST_SHARED + 1));
    Deployment d = new DeploymentBuilder().withNewMetadata().withName("shop").endMetadata().build();
    d.getMetadata().setAnnotations(Map.of("config", longValue));
    d.getMetadata().setFinalizers(List.of(new String("bosun.dev/cleanup")));
    CompactObjects.compact(d);
    assertThat(d.getMetadata().getAnnotations().get("config")).isSameAs(longValue);
    assertThat(d.getMetadata().getFinalizers()).containsExactly("bosun.dev/cleanup");
  }

  private static GenericKubernetesResource budget(String name) {
    return JSON.unmarshal(
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\""
            + name
            + "\"},\"spec\":{\"maxUnavailable\":1,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
            + "\"unhealthyPodEvictionPolicy\":[\"IfHealthyBudget\"]}}",
        GenericKubernetesResource.class);
  }

  @SuppressWarnings("unchecked")
  private static Object selectorValue(GenericKubernetesResource r) {
    Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
    Map<String, Object> selector = (Map<String, Object>) spec.get("selector");
    return ((Map<String, Object>) selector.get("matchLabels")).get("app");
  }
}
