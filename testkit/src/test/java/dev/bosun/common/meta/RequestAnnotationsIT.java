package dev.bosun.common.meta;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A request annotation comes off only while it still asks for what was done, on the API server. */
@ExtendWith(ControlPlaneExtension.class)
class RequestAnnotationsIT {

  private static final String KEY = "example.bosun.dev/rebuild";

  @Test
  void takesOffOnlyTheRequestThatWasActedOnAndKeepsANewerOne() {
    try (KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient()) {
      String ns =
          Crds.namespace(client, "request-" + System.nanoTime() % 100000, Map.of(), Map.of());
      Resource<ConfigMap> object =
          client
              .configMaps()
              .inNamespace(ns)
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName("cluster")
                      .addToAnnotations(KEY, "db-1")
                      .addToAnnotations("keep", "me")
                      .endMetadata()
                      .build());
      object.create();
      String before = object.get().getMetadata().getResourceVersion();

      // The person asked for db-1, then changed it to db-2 before the operator took db-1 off.
      assertThat(RequestAnnotations.removeIfStill(object, KEY, "db-2")).isFalse();
      assertThat(object.get().getMetadata().getAnnotations()).containsEntry(KEY, "db-1");
      assertThat(object.get().getMetadata().getResourceVersion()).isEqualTo(before);

      // A status-like write in between does not make the removal conflict: no resourceVersion.
      object.edit(c -> new ConfigMapBuilder(c).addToData("step", "2").build());
      assertThat(RequestAnnotations.removeIfStill(object, KEY, "db-1")).isTrue();
      assertThat(object.get().getMetadata().getAnnotations())
          .doesNotContainKey(KEY)
          .containsEntry("keep", "me");

      // Gone already (a second round, or a person took it off): nothing happens.
      assertThat(RequestAnnotations.removeIfStill(object, KEY, "db-1")).isFalse();
    }
  }
}
