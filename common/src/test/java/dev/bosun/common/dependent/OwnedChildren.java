package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.Map;
import java.util.function.UnaryOperator;

/** A Deployment child as the informer holds it: uid, generation, a label, the operator's fields. */
final class OwnedChildren {

  static final String OPERATOR = "bosun-test-operator";

  private OwnedChildren() {}

  /** The child, then {@code change} to it. */
  static Deployment deployment(UnaryOperator<DeploymentBuilder> change) {
    FieldsV1 own = new FieldsV1();
    own.setAdditionalProperty("f:spec", Map.of("f:replicas", Map.of()));
    return change
        .apply(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("shop")
                .withUid("uid-1")
                .withGeneration(1L)
                .withResourceVersion("10")
                .addToLabels("app.kubernetes.io/instance", "shop")
                .withManagedFields(
                    new ManagedFieldsEntryBuilder()
                        .withManager(OPERATOR)
                        .withOperation("Apply")
                        .withFieldsV1(own)
                        .build())
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .endSpec())
        .build();
  }

  /** The same child after its controller reported on it: a new resourceVersion and a status. */
  static Deployment rolledOut() {
    return deployment(
        b ->
            b.editMetadata()
                .withResourceVersion("11")
                .endMetadata()
                .withNewStatus()
                .withReadyReplicas(2)
                .endStatus());
  }
}
