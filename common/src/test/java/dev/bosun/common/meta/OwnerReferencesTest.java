package dev.bosun.common.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import org.junit.jupiter.api.Test;

class OwnerReferencesTest {

  /** A controller reference as JOSDK and the built-in controllers write it. */
  private static OwnerReference controllerOf(Deployment owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion("apps/v1")
        .withKind("Deployment")
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  private static final Deployment OWNER =
      new DeploymentBuilder()
          .withNewMetadata()
          .withName("shop")
          .withNamespace("ns")
          .withUid("uid-1")
          .endMetadata()
          .build();

  @Test
  void aChildWithTheControllerReferenceIsControlled() {
    ConfigMap child = child(controllerOf(OWNER));

    assertThat(OwnerReferences.isControlledBy(child, OWNER)).isTrue();
  }

  @Test
  void aChildWithoutReferencesIsNotControlled() {
    ConfigMap child = new ConfigMapBuilder().withNewMetadata().withName("c").endMetadata().build();

    assertThat(OwnerReferences.isControlledBy(child, OWNER)).isFalse();
  }

  @Test
  void aNonControllerReferenceDoesNotCount() {
    OwnerReference plain =
        new OwnerReferenceBuilder(controllerOf(OWNER)).withController(false).build();
    OwnerReference unset =
        new OwnerReferenceBuilder(controllerOf(OWNER)).withController(null).build();

    assertThat(OwnerReferences.isControlledBy(child(plain), OWNER)).isFalse();
    assertThat(OwnerReferences.isControlledBy(child(unset), OWNER)).isFalse();
  }

  @Test
  void sameNameButAnotherUidIsAnotherOwner() {
    Deployment recreated =
        new DeploymentBuilder(OWNER).editMetadata().withUid("uid-2").endMetadata().build();
    ConfigMap child = child(controllerOf(OWNER));

    assertThat(OwnerReferences.isControlledBy(child, recreated)).isFalse();
  }

  @Test
  void anyOfSeveralReferencesMayBeTheController() {
    Deployment other =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName("other")
            .withUid("uid-9")
            .endMetadata()
            .build();
    OwnerReference nonController =
        new OwnerReferenceBuilder(controllerOf(other)).withController(false).build();
    ConfigMap child = child(nonController, controllerOf(OWNER));

    assertThat(OwnerReferences.isControlledBy(child, OWNER)).isTrue();
    assertThat(OwnerReferences.isControlledBy(child, other)).isFalse();
  }

  private static ConfigMap child(OwnerReference... refs) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("child")
        .withNamespace("ns")
        .withOwnerReferences(refs)
        .endMetadata()
        .build();
  }
}
