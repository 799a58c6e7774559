package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The live object instead of a stale copy, and nothing for one deleted or created again. */
@ExtendWith(ControlPlaneExtension.class)
class FreshPrimaryIT {

  @Test
  void readsTheStoredObjectAndRecognisesAnotherOneOfTheSameName() {
    try (KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient()) {
      String ns = Crds.namespace(client, "fresh-" + System.nanoTime() % 100000, Map.of(), Map.of());
      var configMaps = client.configMaps().inNamespace(ns);
      ConfigMap stale =
          configMaps
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName("state")
                      .endMetadata()
                      .addToData("step", "1")
                      .build())
              .create();
      configMaps
          .withName("state")
          .edit(c -> new ConfigMapBuilder(c).addToData("step", "2").build());

      assertThat(FreshPrimary.read(client, stale))
          .get()
          .satisfies(c -> assertThat(c.getData()).containsEntry("step", "2"));

      configMaps.withName("state").delete();
      configMaps
          .withName("state")
          .waitUntilCondition(c -> c == null, 30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(FreshPrimary.read(client, stale)).isEmpty();

      configMaps
          .resource(
              new ConfigMapBuilder().withNewMetadata().withName("state").endMetadata().build())
          .create();
      assertThat(FreshPrimary.read(client, stale)).as("same name, another object").isEmpty();
    }
  }
}
