package dev.bosun.common.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.ServiceAccountTokens;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Events as an operator records them, with only the rights the charts grant on Events. */
@ExtendWith(ControlPlaneExtension.class)
class EventRecorderIT {

  @Test
  void aRepeatedEventIsCountedWithCreateAndPatchRightsOnly() {
    try (KubernetesClient admin = ControlPlaneExtension.controlPlane().adminClient()) {
      String ns = Crds.namespace(admin, "events-" + System.nanoTime() % 100000, Map.of(), Map.of());
      admin
          .serviceAccounts()
          .inNamespace(ns)
          .resource(
              new ServiceAccountBuilder().withNewMetadata().withName("op").endMetadata().build())
          .create();
      admin
          .rbac()
          .roles()
          .inNamespace(ns)
          .resource(
              new RoleBuilder()
                  .withNewMetadata()
                  .withName("events")
                  .endMetadata()
                  .withRules(
                      new PolicyRuleBuilder()
                          .withApiGroups("")
                          .withResources("events")
                          .withVerbs("create", "patch", "update")
                          .build())
                  .build())
          .create();
      admin
          .rbac()
          .roleBindings()
          .inNamespace(ns)
          .resource(
              new RoleBindingBuilder()
                  .withNewMetadata()
                  .withName("events")
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "Role", "events")
                  .addNewSubject()
                  .withKind("ServiceAccount")
                  .withName("op")
                  .withNamespace(ns)
                  .endSubject()
                  .build())
          .create();
      ConfigMap about =
          admin
              .configMaps()
              .inNamespace(ns)
              .resource(
                  new ConfigMapBuilder().withNewMetadata().withName("thing").endMetadata().build())
              .create();
      String token = ServiceAccountTokens.await(admin, ns, "op");

      try (KubernetesClient op = ControlPlaneExtension.controlPlane().clientWithToken(token)) {
        EventRecorder events = new EventRecorder(op, "bosun-test-operator");
        events.record(about, EventRecorder.Type.Normal, "Ready", "all good");
        events.record(about, EventRecorder.Type.Normal, "Ready", "all good");
        events.record(about, EventRecorder.Type.Normal, "Ready", "all good");
      }

      List<Event> recorded = admin.v1().events().inNamespace(ns).list().getItems();
      assertThat(recorded)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getReason()).isEqualTo("Ready");
                assertThat(e.getCount()).isEqualTo(3);
                assertThat(e.getInvolvedObject().getUid()).isEqualTo(about.getMetadata().getUid());
                assertThat(e.getSource().getComponent()).isEqualTo("bosun-test-operator");
              });
    }
  }
}
