package dev.bosun.common.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A reconciler's per-resource state goes with the resource: JOSDK tells {@link PrimaryDeletions} of
 * each deleted primary, and the primary carries no finalizer for it.
 */
@ExtendWith(ControlPlaneExtension.class)
class PrimaryDeletionsIT {

  @Test
  void callsBackWithEachDeletedPrimaryWithoutAFinalizer() {
    try (KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient()) {
      String ns = Crds.namespace(client, "gone-" + System.nanoTime() % 100000, Map.of(), Map.of());
      Remembering reconciler = new Remembering();
      try (OperatorRuntime operator =
          new OperatorRuntime(
                  OperatorSettings.local("deletions-test").watching(Set.of(ns)).withHttpPort(-1),
                  client)
              .register(reconciler)
              .start()) {
        for (String name : List.of("kept", "gone")) {
          client
              .configMaps()
              .inNamespace(ns)
              .resource(
                  new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().build())
              .create();
        }
        await("both reconciled")
            .atMost(Duration.ofSeconds(30))
            .until(() -> reconciler.reconciled.containsAll(List.of("kept", "gone")));
        assertThat(client.configMaps().inNamespace(ns).withName("gone").get().getFinalizers())
            .isEmpty();

        client.configMaps().inNamespace(ns).withName("gone").delete();

        await("the deletion is told")
            .atMost(Duration.ofSeconds(30))
            .until(() -> reconciler.deleted.contains("gone"));
        assertThat(reconciler.deleted).containsExactly("gone");
      } finally {
        client.namespaces().withName(ns).delete();
      }
    }
  }

  /** Remembers the ConfigMaps it reconciled and the ones it was told are deleted. */
  @ControllerConfiguration
  static class Remembering implements Reconciler<ConfigMap> {
    final List<String> reconciled = new CopyOnWriteArrayList<>();
    final List<String> deleted = new CopyOnWriteArrayList<>();

    @Override
    public List<EventSource<?, ConfigMap>> prepareEventSources(
        EventSourceContext<ConfigMap> context) {
      return List.of(
          new PrimaryDeletions<ConfigMap>(
              "deletions", cm -> deleted.add(cm.getMetadata().getName())));
    }

    @Override
    public UpdateControl<ConfigMap> reconcile(ConfigMap cm, Context<ConfigMap> context) {
      reconciled.add(cm.getMetadata().getName());
      return UpdateControl.noUpdate();
    }
  }
}
