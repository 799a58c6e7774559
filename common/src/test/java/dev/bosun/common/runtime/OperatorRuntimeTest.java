package dev.bosun.common.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import org.junit.jupiter.api.Test;

class OperatorRuntimeTest {

  private static final String EVENT_OBJECT =
      "{\"apiVersion\":\"test.bosun.dev/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g\"}}";

  @Test
  void watchEventsOfAPrimaryKindAreReadStraightIntoItsClass() {
    Config offline = new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(offline).build()) {
      var serialization = client.getKubernetesSerialization();
      // What a watch does with an event's object: read it as some Kubernetes resource.
      assertThat(serialization.unmarshal(EVENT_OBJECT, KubernetesResource.class))
          .as("before the reconciler is registered")
          .isNotInstanceOf(Gadget.class);

      try (OperatorRuntime runtime =
          new OperatorRuntime(OperatorSettings.local("gadget-test").withHttpPort(-1), client)
              .register(new Gadgets())) {
        assertThat(serialization.unmarshal(EVENT_OBJECT, KubernetesResource.class))
            .isInstanceOf(Gadget.class);
      }
    }
  }

  @ControllerConfiguration(name = "gadgets")
  static final class Gadgets implements Reconciler<Gadget> {
    @Override
    public UpdateControl<Gadget> reconcile(Gadget resource, Context<Gadget> context) {
      return UpdateControl.noUpdate();
    }
  }

  @Group("test.bosun.dev")
  @Version("v1")
  public static final class Gadget extends CustomResource<Void, Void> implements Namespaced {}
}
