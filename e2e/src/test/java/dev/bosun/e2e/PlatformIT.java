package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.Crds;
import dev.bosun.platform.PlatformChart;
import dev.bosun.platform.PlatformRelease;
import dev.bosun.platform.Resources;
import dev.bosun.platform.RunningPlatform;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The platform as a user runs it: the umbrella chart installed, the operators running under their
 * charts' ServiceAccounts, and one application that uses them together.
 */
@ExtendWith(E2eClusterExtension.class)
class PlatformIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static PlatformRelease release;
  private static KubernetesClient admin;
  private static RunningPlatform platform;

  @BeforeAll
  static void installAndStart() {
    release = PlatformRelease.shared();
    admin = release.admin();
    platform = new RunningPlatform(release, PlatformChart.OPERATORS);
    platform.start();
  }

  @AfterAll
  static void stop() {
    if (platform != null) {
      platform.close();
    }
  }

  private static String suffix() {
    return UUID.randomUUID().toString().substring(0, 6);
  }

  /** The ReplicaSets of a Deployment: one per rollout of its pod template. */
  private static List<ReplicaSet> replicaSets(String ns, Deployment d) {
    return admin.apps().replicaSets().inNamespace(ns).list().getItems().stream()
        .filter(
            rs ->
                rs.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> o.getUid().equals(d.getMetadata().getUid())))
        .toList();
  }

  private static Deployment shopDeployment(String ns) {
    List<Deployment> found =
        admin
            .apps()
            .deployments()
            .inNamespace(ns)
            .withLabel("app.kubernetes.io/instance", "shop")
            .list()
            .getItems();
    assertThat(found).as("Deployments of WebService shop").hasSize(1);
    return found.get(0);
  }

  @Test
  void aWebServiceReadsSyncedConfigAndRollsWhenItChangesAcrossARestart() {
    String source = Crds.namespace(admin, "platform-config-" + suffix(), Map.of(), Map.of());
    String shop =
        Crds.namespace(
            admin,
            "shop-" + suffix(),
            Map.of(),
            Map.of("config.bosun.dev/accept-sync-from", source));

    // The platform team's configuration, offered to the shop namespace.
    Resources.apply(
        admin,
        source,
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: shop-config
          labels: {config.bosun.dev/sync-source: "true"}
          annotations: {config.bosun.dev/allow-sync-to: "%s"}
        data: {GREETING: hello}
        ---
        apiVersion: config.bosun.dev/v1alpha1
        kind: ConfigMapSync
        metadata: {name: shop-config}
        spec:
          source: {name: shop-config}
          destinations: {namespaces: ["%s"]}
        """
            .formatted(shop, shop));
    // The shop team's service, reading the synced copy, rolled when it changes, next to the
    // stateful services it uses.
    platform.runWorkloadsIn(shop);
    platform.runMySqlInstances(shop, "shop-db", 3);
    Resources.apply(
        admin,
        shop,
        """
        apiVersion: web.bosun.dev/v1alpha1
        kind: WebService
        metadata: {name: shop}
        spec:
          image: registry.example.com/shop:1.0.0
          replicas: 2
          ports: [{name: http, port: 80, containerPort: 8080}]
          envFrom: [{configMapRef: {name: shop-config}}]
        ---
        apiVersion: config.bosun.dev/v1alpha1
        kind: ConfigMonitor
        metadata: {name: shop}
        spec:
          configMaps: [shop-config]
          selector: {matchLabels: {app.kubernetes.io/instance: shop}}
          strategy: RollingUpdate
          debounceSeconds: 0
        ---
        apiVersion: etcd.bosun.dev/v1alpha1
        kind: EtcdCluster
        metadata: {name: shop-etcd}
        spec: {size: 3, version: 3.4.23}
        ---
        apiVersion: mysql.bosun.dev/v1alpha1
        kind: MySQLCluster
        metadata: {name: shop-db}
        spec: {replicas: 3, flavour: MariaDB, version: "10.11"}
        """);

    List<Ref> everything =
        List.of(
            new Ref("config.bosun.dev/v1alpha1", "ConfigMapSync", source, "shop-config"),
            new Ref("web.bosun.dev/v1alpha1", "WebService", shop, "shop"),
            new Ref("config.bosun.dev/v1alpha1", "ConfigMonitor", shop, "shop"),
            new Ref("etcd.bosun.dev/v1alpha1", "EtcdCluster", shop, "shop-etcd"),
            new Ref("mysql.bosun.dev/v1alpha1", "MySQLCluster", shop, "shop-db"));
    awaitOrShow("everything Ready", everything, () -> allReady(everything));
    assertThat(admin.configMaps().inNamespace(shop).withName("shop-config").get().getData())
        .containsEntry("GREETING", "hello");
    Deployment before = shopDeployment(shop);
    assertThat(replicaSets(shop, before)).hasSize(1);

    // The configuration changes: the copy follows and the service rolls once.
    changeGreeting(source, "hello again");
    await("the copy to follow and the service to roll")
        .atMost(CONVERGE)
        .until(
            () ->
                "hello again".equals(copy(shop).getData().get("GREETING"))
                    && replicaSets(shop, shopDeployment(shop)).size() == 2
                    && Resources.ready(
                        Resources.get(
                            admin, "web.bosun.dev/v1alpha1", "WebService", shop, "shop")));

    // Operators stop mid-way (a rolling restart); the configuration changes while they are down.
    platform.stop();
    changeGreeting(source, "hello after restart");
    platform.start();
    awaitOrShow(
        "convergence after the restart",
        everything,
        () ->
            "hello after restart".equals(copy(shop).getData().get("GREETING"))
                && replicaSets(shop, shopDeployment(shop)).size() == 3
                && allReady(everything));

    // No duplicates and no orphans: one of each child, each owned by what is still there.
    assertThat(
            admin
                .services()
                .inNamespace(shop)
                .withLabel("app.kubernetes.io/instance", "shop")
                .list()
                .getItems())
        .hasSize(1);
    assertThat(
            admin
                .configMaps()
                .inNamespace(shop)
                .withLabel("config.bosun.dev/sync-name", "shop-config")
                .list()
                .getItems())
        .hasSize(1);
    assertNoOrphans(shop);

    // Converged means idle: no operator writes anything.
    platform.assertIdle(Duration.ofSeconds(10), source, shop);
  }

  /** A custom resource by API version, kind, namespace and name. */
  record Ref(String apiVersion, String kind, String namespace, String name) {}

  private static boolean allReady(List<Ref> refs) {
    return refs.stream()
        .allMatch(
            r ->
                Resources.ready(
                    Resources.get(admin, r.apiVersion(), r.kind(), r.namespace(), r.name())));
  }

  /** Waits for {@code done}; on time-out the failure shows the resources as they are. */
  private static void awaitOrShow(
      String what, List<Ref> show, java.util.concurrent.Callable<Boolean> done) {
    try {
      await(what).atMost(CONVERGE).until(done);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      StringBuilder state = new StringBuilder(what + " did not happen; the resources are:\n");
      for (Ref r : show) {
        state
            .append(
                io.fabric8.kubernetes.client.utils.Serialization.asYaml(
                    Resources.get(admin, r.apiVersion(), r.kind(), r.namespace(), r.name())))
            .append('\n');
      }
      throw new AssertionError(state.toString(), e);
    }
  }

  private static ConfigMap copy(String shop) {
    return admin.configMaps().inNamespace(shop).withName("shop-config").get();
  }

  private static void changeGreeting(String source, String greeting) {
    admin
        .configMaps()
        .inNamespace(source)
        .withName("shop-config")
        .edit(
            cm -> {
              cm.getData().put("GREETING", greeting);
              return cm;
            });
  }

  /** Every object a Bosun operator manages in {@code ns} is owned, and its owners exist. */
  private static void assertNoOrphans(String ns) {
    List<HasMetadata> managed =
        java.util.stream.Stream.of(
                admin.apps().deployments().inNamespace(ns).list().getItems(),
                admin.services().inNamespace(ns).list().getItems(),
                admin
                    .autoscaling()
                    .v1()
                    .horizontalPodAutoscalers()
                    .inNamespace(ns)
                    .list()
                    .getItems())
            .flatMap(List::stream)
            .map(HasMetadata.class::cast)
            .filter(
                o ->
                    o.getMetadata().getLabels() != null
                        && "bosun"
                            .equals(o.getMetadata().getLabels().get("app.kubernetes.io/part-of")))
            .toList();
    assertThat(managed).isNotEmpty();
    for (HasMetadata o : managed) {
      assertThat(o.getMetadata().getOwnerReferences())
          .as("owners of %s", o.getMetadata().getName())
          .isNotEmpty()
          .allSatisfy(
              ref -> {
                var live =
                    Resources.get(admin, ref.getApiVersion(), ref.getKind(), ns, ref.getName());
                assertThat(live)
                    .as("owner %s of %s", ref.getName(), o.getMetadata().getName())
                    .isNotNull();
                assertThat(live.getMetadata().getUid()).isEqualTo(ref.getUid());
              });
    }
  }
}
