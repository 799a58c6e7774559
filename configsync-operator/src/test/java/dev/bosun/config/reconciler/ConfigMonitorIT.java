package dev.bosun.config.reconciler;

import static dev.bosun.config.ConfigSyncOperator.CONFIG_HASH_ANNOTATION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.config.ConfigSyncUnderTest;
import dev.bosun.config.v1alpha1.ConfigMonitor;
import dev.bosun.config.v1alpha1.ConfigMonitorSpec;
import dev.bosun.config.v1alpha1.ConfigMonitorStatus;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ConfigMonitor against the real deployment controller: a config change is a new ReplicaSet. */
@ExtendWith(ControlPlaneExtension.class)
class ConfigMonitorIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(40);
  @RegisterExtension static final RunningOperator operator = ConfigSyncUnderTest.operator();
  private static final KubernetesClient client = operator.testClient;

  private static void configMap(String ns, String name, String value) {
    client
        .configMaps()
        .inNamespace(ns)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .addToData("setting", value)
                .build())
        .serverSideApply();
  }

  private static void deployment(String ns, String app) {
    client
        .apps()
        .deployments()
        .inNamespace(ns)
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName(app)
                .addToLabels("app", app)
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withNewSelector()
                .addToMatchLabels("app", app)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", app)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("registry.example.com/" + app + ":1")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
  }

  private static void statefulSet(String ns, String app) {
    client
        .apps()
        .statefulSets()
        .inNamespace(ns)
        .resource(
            new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder()
                .withNewMetadata()
                .withName(app + "-db")
                .addToLabels("app", app)
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withServiceName(app + "-db")
                // The monitor selects workloads by their own labels; the pods get their own so
                // they never overlap the Deployment's selector.
                .withNewSelector()
                .addToMatchLabels("app", app + "-db")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", app + "-db")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("db")
                .withImage("registry.example.com/db:1")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
  }

  private static void monitor(
      String ns, String name, String config, String app, String strategy, int debounce) {
    ConfigMonitorSpec spec = new ConfigMonitorSpec();
    spec.setConfigMaps(List.of(config));
    spec.setSelector(new LabelSelectorBuilder().addToMatchLabels("app", app).build());
    spec.setStrategy(ConfigMonitorSpec.Strategy.valueOf(strategy.toUpperCase()));
    spec.setDebounceSeconds(debounce);
    ConfigMonitor m = new ConfigMonitor();
    m.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).build());
    m.setSpec(spec);
    client.resources(ConfigMonitor.class).inNamespace(ns).resource(m).create();
  }

  private static ConfigMonitorStatus status(String ns, String name) {
    ConfigMonitor m = client.resources(ConfigMonitor.class).inNamespace(ns).withName(name).get();
    assertThat(m.getStatus()).isNotNull();
    return m.getStatus();
  }

  private static List<ReplicaSet> replicaSets(String ns, String app) {
    return client.apps().replicaSets().inNamespace(ns).withLabel("app", app).list().getItems();
  }

  private static void awaitWatching(String ns, String name) {
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              ConfigMonitorStatus s = status(ns, name);
              assertThat(Conditions.isTrue(s.getConditions(), "Ready")).isTrue();
              assertThat(s.getConfigHash()).isNotBlank();
            });
  }

  private static void quiet(Duration d) {
    await().pollDelay(d).atMost(d.plusSeconds(5)).until(() -> true);
  }

  @Test
  void aConfigChangeRollsTheDeploymentThroughANewReplicaSetAndARestartRollsNothing() {
    String ns = ConfigSyncUnderTest.namespace(client, "monitor", Map.of(), Map.of());
    configMap(ns, "web-config", "v1");
    deployment(ns, "web");
    statefulSet(ns, "web");
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(replicaSets(ns, "web")).hasSize(1));
    monitor(ns, "web", "web-config", "web", "RollingUpdate", 1);
    awaitWatching(ns, "web");
    String baseline = status(ns, "web").getConfigHash();
    // Watching alone rolls nothing.
    quiet(Duration.ofSeconds(2));
    assertThat(replicaSets(ns, "web")).hasSize(1);

    configMap(ns, "web-config", "v2");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(replicaSets(ns, "web")).hasSize(2);
              ConfigMonitorStatus s = status(ns, "web");
              assertThat(s.getConfigHash()).isNotEqualTo(baseline);
              assertThat(s.getLastRolloutTime()).isNotNull();
              assertThat(s.getWorkloads())
                  .extracting(w -> w.getKind() + "/" + w.getName())
                  .containsExactlyInAnyOrder("Deployment/web", "StatefulSet/web-db");
            });
    String hash = status(ns, "web").getConfigHash();
    assertThat(
            client
                .apps()
                .deployments()
                .inNamespace(ns)
                .withName("web")
                .get()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations())
        .containsEntry(CONFIG_HASH_ANNOTATION, hash);
    assertThat(client.v1().events().inNamespace(ns).list().getItems())
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("RolledOut"))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("ConfigChanged");
              assertThat(e.getInvolvedObject().getKind()).isEqualTo("Deployment");
            });

    assertThat(
            client
                .apps()
                .statefulSets()
                .inNamespace(ns)
                .withName("web-db")
                .get()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations())
        .containsEntry(CONFIG_HASH_ANNOTATION, hash);

    // An operator restart re-reads the persisted hash: nothing rolls by itself.
    operator.stop();
    operator.start();
    quiet(Duration.ofSeconds(4));
    assertThat(replicaSets(ns, "web")).hasSize(2);
    assertThat(status(ns, "web").getConfigHash()).isEqualTo(hash);
  }

  @Test
  void aBurstOfEditsWithinTheDebounceWindowCausesOneRollout() {
    String ns = ConfigSyncUnderTest.namespace(client, "burst", Map.of(), Map.of());
    configMap(ns, "cfg", "0");
    deployment(ns, "api");
    monitor(ns, "api", "cfg", "api", "RollingUpdate", 3);
    awaitWatching(ns, "api");
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(replicaSets(ns, "api")).hasSize(1));

    for (int i = 1; i <= 4; i++) {
      configMap(ns, "cfg", Integer.toString(i));
      quiet(Duration.ofMillis(500));
    }
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(replicaSets(ns, "api")).hasSize(2));
    quiet(Duration.ofSeconds(5));
    assertThat(replicaSets(ns, "api")).as("one rollout for the whole burst").hasSize(2);
  }

  @Test
  void barePodsAreDeletedOnlyWithTheDeletePodsStrategy() {
    String ns = ConfigSyncUnderTest.namespace(client, "bare", Map.of(), Map.of());
    configMap(ns, "cfg", "a");
    for (String app : List.of("kept", "replaced")) {
      client
          .pods()
          .inNamespace(ns)
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(app)
                  .addToLabels("app", app)
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("c")
                  .withImage("registry.example.com/x:1")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
    }
    monitor(ns, "kept", "cfg", "kept", "RollingUpdate", 0);
    monitor(ns, "replaced", "cfg", "replaced", "DeletePods", 0);
    awaitWatching(ns, "kept");
    awaitWatching(ns, "replaced");

    configMap(ns, "cfg", "b");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> assertThat(client.pods().inNamespace(ns).withName("replaced").get()).isNull());
    await()
        .atMost(TIMEOUT)
        .untilAsserted(() -> assertThat(status(ns, "kept").getLastRolloutTime()).isNotNull());
    assertThat(client.pods().inNamespace(ns).withName("kept").get()).isNotNull();
  }

  @Test
  void aMissingConfigMapIsReportedRollsNothingAndIsFoundWhenItAppears() {
    String ns = ConfigSyncUnderTest.namespace(client, "missing", Map.of(), Map.of());
    deployment(ns, "lonely");
    monitor(ns, "lonely", "not-there", "lonely", "RollingUpdate", 0);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              var ready =
                  Conditions.find(status(ns, "lonely").getConditions(), "Ready").orElseThrow();
              assertThat(ready.getReason()).isEqualTo("ConfigNotFound");
              assertThat(ready.getMessage()).contains("ConfigMap not-there");
            });
    assertThat(replicaSets(ns, "lonely")).hasSizeLessThanOrEqualTo(1);

    // The ConfigMap appears later (a sync copies it in, someone creates it): the monitor finds
    // it without any event of its own and starts watching, still rolling nothing.
    configMap(ns, "not-there", "v1");
    awaitWatching(ns, "lonely");
    assertThat(replicaSets(ns, "lonely")).hasSizeLessThanOrEqualTo(1);
  }
}
