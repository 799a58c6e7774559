package dev.bosun.common.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.WriteCounter;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Disruption budgets on the real 1.20 API server, which serves only policy/v1beta1. */
@ExtendWith(ControlPlaneExtension.class)
class PodDisruptionBudgetsIT {

  private final WriteCounter writes = new WriteCounter();
  private KubernetesClient client;
  private String ns;
  private ConfigMap owner;

  @BeforeEach
  void setUp() {
    client =
        ControlPlaneExtension.controlPlane()
            .adminClient(b -> b.addOrReplaceInterceptor("writes", writes));
    ns = Crds.namespace(client, "pdb-" + System.nanoTime() % 100000, Map.of(), Map.of());
    owner =
        client
            .configMaps()
            .inNamespace(ns)
            .resource(
                new ConfigMapBuilder().withNewMetadata().withName("owner").endMetadata().build())
            .create();
  }

  @AfterEach
  void tearDown() {
    client.namespaces().withName(ns).delete();
    client.close();
  }

  private static DisruptionBudget budget(int minAvailable) {
    return new DisruptionBudget(
        "members",
        Map.of("app.kubernetes.io/part-of", "bosun"),
        Map.of("app", "x"),
        minAvailable,
        null);
  }

  @Test
  void usesTheVersionTheServerServesAndWritesOnlyOnChange() {
    assertThat(PodDisruptionBudgets.apiVersion(client))
        .isEqualTo(PodDisruptionBudgets.POLICY_V1BETA1);

    assertThat(PodDisruptionBudgets.ensure(client, owner, budget(2), "bosun-test")).isTrue();
    var live =
        client
            .resources(io.fabric8.kubernetes.api.model.policy.v1beta1.PodDisruptionBudget.class)
            .inNamespace(ns)
            .withName("members")
            .get();
    assertThat(live.getSpec().getMinAvailable()).isEqualTo(new IntOrString(2));
    assertThat(live.getSpec().getSelector().getMatchLabels()).containsEntry("app", "x");
    assertThat(live.getMetadata().getLabels()).containsEntry("app.kubernetes.io/part-of", "bosun");
    assertThat(live.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(r -> assertThat(r.getUid()).isEqualTo(owner.getMetadata().getUid()));

    int before = writes.count();
    assertThat(PodDisruptionBudgets.ensure(client, owner, budget(2), "bosun-test")).isFalse();
    assertThat(writes.since(before)).isEmpty();

    assertThat(PodDisruptionBudgets.ensure(client, owner, budget(3), "bosun-test")).isTrue();
    assertThat(
            client
                .resources(io.fabric8.kubernetes.api.model.policy.v1beta1.PodDisruptionBudget.class)
                .inNamespace(ns)
                .withName("members")
                .get()
                .getSpec()
                .getMinAvailable())
        .isEqualTo(new IntOrString(3));
  }

  @Test
  void goesWithItsOwner() {
    PodDisruptionBudgets.ensure(client, owner, budget(1), "bosun-test");
    client.configMaps().inNamespace(ns).withName("owner").delete();

    await("garbage collection of the budget")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                client
                        .resources(
                            io.fabric8.kubernetes.api.model.policy.v1beta1.PodDisruptionBudget
                                .class)
                        .inNamespace(ns)
                        .withName("members")
                        .get()
                    == null);
  }
}
