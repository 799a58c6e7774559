package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.LogCapture;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.InstanceClient;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MariaDbServers;
import dev.bosun.mysql.testing.MySQLOperatorFixture;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator on the real control plane (StatefulSet controller, kubelet simulator) with each pod
 * played by a real MariaDB server on 127.0.0.1.
 */
@ExtendWith(ControlPlaneExtension.class)
class MySQLClusterIT {

  @RegisterExtension static final MySQLOperatorFixture FX = new MySQLOperatorFixture("mysql");

  private GenericKubernetesResource create(String name, String spec) {
    return Crds.createRaw(
        FX.client(), "mysql.bosun.dev/v1alpha1", "MySQLCluster", FX.namespace(), name, spec);
  }

  private MySQLCluster get(String name) {
    return FX.client()
        .resources(MySQLCluster.class)
        .inNamespace(FX.namespace())
        .withName(name)
        .get();
  }

  private String condition(String name, String type) {
    MySQLCluster c = get(name);
    if (c == null || c.getStatus() == null) {
      return null;
    }
    return Conditions.find(c.getStatus().getConditions(), type)
        .map(x -> x.getStatus() + "/" + x.getReason())
        .orElse(null);
  }

  private String role(String pod) {
    Pod p = FX.client().pods().inNamespace(FX.namespace()).withName(pod).get();
    return p == null ? null : p.getMetadata().getLabels().get(MySQLOperator.ROLE);
  }

  private List<Event> events() {
    return FX.client().v1().events().inNamespace(FX.namespace()).list().getItems();
  }

  private static final String MARIADB =
      "flavour: MariaDB\nversion: '10.11'\nfailover: {primaryUnavailableSeconds: 2}\n";

  @Test
  void aClusterGetsItsObjectsReplicatesAndFollowsAFailover() throws Exception {
    FX.serversFor("db", 3);
    create("db", MARIADB + "replicas: 3");

    await("Ready")
        .atMost(Duration.ofSeconds(90))
        .until(() -> "True/Replicating".equals(condition("db", "Ready")));
    MySQLCluster c = get("db");
    assertThat(c.getStatus().getPrimary()).isEqualTo("db-0");
    assertThat(c.getStatus().getHealthyInstances()).isEqualTo(3);
    assertThat(c.getStatus().getInstances())
        .extracting(i -> i.getRole())
        .containsExactly("primary", "replica", "replica");

    StatefulSet sts =
        FX.client().apps().statefulSets().inNamespace(FX.namespace()).withName("db").get();
    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
    for (String svc : List.of("db-headless", "db-primary", "db-replicas")) {
      assertThat(FX.client().services().inNamespace(FX.namespace()).withName(svc).get())
          .isNotNull();
    }
    assertThat(
            FX.client()
                .services()
                .inNamespace(FX.namespace())
                .withName("db-primary")
                .get()
                .getSpec()
                .getSelector())
        .containsEntry(MySQLOperator.ROLE, "primary");
    assertThat(FX.client().configMaps().inNamespace(FX.namespace()).withName("db-config").get())
        .isNotNull();
    assertThat(
            FX.client()
                .genericKubernetesResources("policy/v1beta1", "PodDisruptionBudget")
                .inNamespace(FX.namespace())
                .withName("db")
                .get())
        .isNotNull();
    Secret root = FX.client().secrets().inNamespace(FX.namespace()).withName("db-root").get();
    String rootPassword =
        new String(
            Base64.getDecoder().decode(root.getData().get("password")), StandardCharsets.UTF_8);
    assertThat(rootPassword).hasSizeGreaterThanOrEqualTo(20);

    await("role labels")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                "primary".equals(role("db-0"))
                    && "replica".equals(role("db-1"))
                    && "replica".equals(role("db-2")));

    // Passwords never reach status, Events or the ConfigMap.
    String visible =
        Serialization.asJson(get("db").getStatus())
            + Serialization.asJson(events())
            + Serialization.asJson(
                FX.client().configMaps().inNamespace(FX.namespace()).withName("db-config").get());
    assertThat(visible)
        .doesNotContain(rootPassword)
        .doesNotContain(MariaDbServers.CREDENTIALS.operatorPassword())
        .doesNotContain(MariaDbServers.CREDENTIALS.replicationPassword());

    // Converged: no writes and no API reads while nothing changes (the health rounds ask the
    // servers, every Kubernetes object comes from the informers), over 16 rounds of 500 ms.
    FX.operator().writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(60));
    int readsBefore = FX.operator().writes.readCount();
    assertThat(FX.operator().writes.writesDuring(Duration.ofSeconds(8), FX.namespace())).isEmpty();
    assertThat(FX.operator().writes.readsSince(readsBefore, FX.namespace()))
        .as("API reads while idle")
        .isEmpty();

    // Failover: the primary's server dies while the app writes.
    AppClient.createSchema(FX.server("db-0").address());
    AppClient.insert(FX.server("db-0").address(), 1);
    FX.server("db-0").kill();
    await("failover")
        .atMost(Duration.ofSeconds(90))
        .until(() -> !"db-0".equals(get("db").getStatus().getPrimary()));
    String primary = get("db").getStatus().getPrimary();
    assertThat(get("db").getStatus().getPreviousPrimary()).isEqualTo("db-0");
    assertThat(AppClient.ids(FX.server(primary).address())).contains(1L);
    await("labels follow the primary")
        .atMost(Duration.ofSeconds(60))
        .until(() -> "primary".equals(role(primary)) && role("db-0") == null);
    assertThat(events())
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("FailedOver");
              assertThat(e.getType()).isEqualTo("Warning");
            });

    // The old primary's server comes back and rejoins as a replica.
    FX.server("db-0").start();
    await("rejoined")
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                "True/Replicating".equals(condition("db", "Ready"))
                    && "replica".equals(role("db-0")));
    assertThat(get("db").getStatus().getHealthyInstances()).isEqualTo(3);
  }

  @Test
  void aFenceStopsRootAsItStopsEveryAccountButTheOperators() throws Exception {
    FX.serversFor("fence", 2);
    // Members whose data was made before the operator took the exemption away: root holds
    // READ_ONLY ADMIN on each (granted outside the binlog, so no member holds a transaction).
    for (MariaDbServers.Server s : FX.servers()) {
      try (Connection c = AppClient.admin(s.address());
          Statement st = c.createStatement()) {
        st.execute("SET sql_log_bin=0");
        st.execute("GRANT READ_ONLY ADMIN ON *.* TO 'root'@'%'");
        // A row the server ignores (a host name under skip-name-resolve, as an image's install
        // script may leave): it can log in with nothing, and must not stop the fence's grants.
        st.execute(
            "INSERT INTO mysql.global_priv (Host, User, Priv) VALUES ('db-host', 'root', '{}')");
        st.execute("FLUSH PRIVILEGES");
      }
    }
    try (LogCapture log = LogCapture.start()) {
      create("fence", MARIADB + "replicas: 2");
      await("Ready")
          .atMost(Duration.ofSeconds(90))
          .until(() -> "True/Replicating".equals(condition("fence", "Ready")));
      assertThat(log.lines())
          .as("the operator's log while the fence grants are taken")
          .noneMatch(l -> l.contains("fence grants not ensured"));
    }
    var primary = FX.server("fence-0").address();
    var replica = FX.server("fence-1").address();
    AppClient.createSchema(primary);
    AppClient.awaitApplied(primary, List.of(replica));

    // The replica is read-only: root is refused there as every application account is.
    assertThatThrownBy(() -> AppClient.asRoot(replica, "INSERT INTO app.items VALUES (1, 'root')"))
        .hasMessageContaining("read-only");
    AppClient.asRoot(primary, "INSERT INTO app.items VALUES (2, 'root')");
    AppClient.awaitApplied(primary, List.of(replica));
    assertThat(AppClient.ids(replica)).containsExactly(2L);
  }

  @Test
  void anApplicationAccountGetsItsDatabaseAPasswordSecretAndNothingMore() throws Exception {
    FX.serversFor("acc", 2);
    create(
        "acc",
        MARIADB
            + "replicas: 2\nusers: [{name: shop, databases: [orders], privileges: [SELECT,"
            + " INSERT, UPDATE, DELETE]}]");
    await("Ready")
        .atMost(Duration.ofSeconds(90))
        .until(() -> "True/Replicating".equals(condition("acc", "Ready")));
    await("accounts applied")
        .atMost(Duration.ofSeconds(30))
        .until(() -> events().stream().anyMatch(e -> "AccountsApplied".equals(e.getReason())));
    Secret secret =
        FX.client().secrets().inNamespace(FX.namespace()).withName("acc-user-shop").get();
    assertThat(secret.getMetadata().getOwnerReferences()).isEmpty();
    String password =
        new String(
            Base64.getDecoder().decode(secret.getData().get("password")), StandardCharsets.UTF_8);
    var primary = FX.server("acc-0").address();
    var replica = FX.server("acc-1").address();
    AppClient.adminQuery(primary, "CREATE TABLE orders.o (id INT PRIMARY KEY)");
    try (Connection c = AppClient.connect(primary, "shop", password);
        Statement st = c.createStatement()) {
      st.execute("INSERT INTO orders.o VALUES (1)");
      // Database-level privileges only: no DDL it was not given, no other schema, no server-wide
      // privilege to lift the fence with.
      assertThatThrownBy(() -> st.execute("CREATE TABLE orders.t (id INT)"))
          .hasMessageContaining("denied");
      assertThatThrownBy(() -> st.execute("SET GLOBAL read_only=OFF"))
          .hasMessageContaining("denied");
      assertThatThrownBy(() -> st.execute("CREATE DATABASE other")).hasMessageContaining("denied");
    }
    AppClient.awaitApplied(primary, List.of(replica));
    try (Connection c = AppClient.connect(replica, "shop", password);
        Statement st = c.createStatement()) {
      assertThatThrownBy(() -> st.execute("INSERT INTO orders.o VALUES (2)"))
          .hasMessageContaining("read-only");
    }
  }

  @Test
  void withMetricsTheOperatorGeneratesTheExportersSecretAndItsUserReplicatesFromThePrimary() {
    FX.serversFor("mx", 2);
    create("mx", MARIADB + "replicas: 2\nmetrics: {enabled: true}");

    await("Ready")
        .atMost(Duration.ofSeconds(90))
        .until(() -> "True/Replicating".equals(condition("mx", "Ready")));
    Secret secret = FX.client().secrets().inNamespace(FX.namespace()).withName("mx-metrics").get();
    String password =
        new String(
            Base64.getDecoder().decode(secret.getData().get("password")), StandardCharsets.UTF_8);
    assertThat(password).hasSize(24);
    assertThat(secret.getMetadata().getOwnerReferences()).isNullOrEmpty();
    // Created on the primary by the operator, read on the replica: it came by replication.
    InstanceClient replicaAsMetricsUser =
        new InstanceClient(
            FX.server("mx-1").address(),
            new Credentials("bosun_metrics", password, "none", "none"),
            Duration.ofSeconds(5));
    await("the metrics user on the replica")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> !replicaAsMetricsUser.query("SELECT 1", Duration.ofSeconds(5)).isEmpty());
    StatefulSet sts =
        FX.client().apps().statefulSets().inNamespace(FX.namespace()).withName("mx").get();
    assertThat(sts.getSpec().getTemplate().getSpec().getContainers())
        .extracting(c -> c.getName())
        .containsExactly("mysql", "mysqld-exporter");
    assertThat(
            FX.client()
                .services()
                .inNamespace(FX.namespace())
                .withName("mx-headless")
                .get()
                .getSpec()
                .getPorts())
        .anyMatch(p -> p.getName().equals("metrics") && p.getPort() == 9104);
    // Metrics cost an idle cluster nothing: no writes, no API reads (the Secret is in the cache).
    FX.operator().writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(60));
    int readsBefore = FX.operator().writes.readCount();
    assertThat(FX.operator().writes.writesDuring(Duration.ofSeconds(5), FX.namespace())).isEmpty();
    assertThat(FX.operator().writes.readsSince(readsBefore, FX.namespace()))
        .as("API reads while idle")
        .isEmpty();
  }

  @Test
  void aReplicasChangeWhileThePrimaryIsMissingWaitsAndLosesNothing() {
    FX.serversFor("hold", 3);
    create("hold", "flavour: MariaDB\nversion: '10.11'\nreplicas: 3\nfailover: {enabled: false}");
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> "True/Replicating".equals(condition("hold", "Ready")));
    FX.server("hold-0").kill();
    await("blocked")
        .atMost(Duration.ofSeconds(60))
        .until(() -> "True/FailoverDisabled".equals(condition("hold", "Degraded")));
    Edits.edit(
        FX.client().resources(MySQLCluster.class).inNamespace(FX.namespace()).withName("hold"),
        c -> {
          c.getSpec().setReplicas(2);
          return c;
        });
    await("deferred")
        .atMost(Duration.ofSeconds(60))
        .until(() -> "True/ScaleDeferred".equals(condition("hold", "Progressing")));
    assertThat(
            FX.client()
                .apps()
                .statefulSets()
                .inNamespace(FX.namespace())
                .withName("hold")
                .get()
                .getSpec()
                .getReplicas())
        .isEqualTo(3);
    // The primary comes back with its data: it takes writes again, then the scale-down runs.
    FX.server("hold-0").start();
    await("scaled")
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                FX.client()
                        .apps()
                        .statefulSets()
                        .inNamespace(FX.namespace())
                        .withName("hold")
                        .get()
                        .getSpec()
                        .getReplicas()
                    == 2);
    assertThat(get("hold").getStatus().getPrimary()).isEqualTo("hold-0");
  }

  @Test
  void invalidSpecsAndMissingSecretsAreReportedWithoutTouchingAnything() {
    create("owned", "flavour: MariaDB\nversion: '10.11'\nserverConfig: {read_only: 'OFF'}");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/InvalidSpec".equals(condition("owned", "Ready")));
    assertThat(get("owned").getStatus().getConditions())
        .anySatisfy(x -> assertThat(x.getMessage()).contains("serverConfig.read_only"));
    assertThat(
            FX.client().apps().statefulSets().inNamespace(FX.namespace()).withName("owned").get())
        .isNull();

    create("mismatch", "flavour: MySQL\nversion: '10.11'");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/InvalidSpec".equals(condition("mismatch", "Ready")));

    create(
        "nosecret", "flavour: MariaDB\nversion: '10.11'\nrootPasswordSecret: {name: missing-root}");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/RootSecretMissing".equals(condition("nosecret", "Ready")));
    assertThat(
            FX.client()
                .apps()
                .statefulSets()
                .inNamespace(FX.namespace())
                .withName("nosecret")
                .get())
        .isNull();
    FX.client()
        .secrets()
        .inNamespace(FX.namespace())
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("missing-root")
                .endMetadata()
                .withStringData(Map.of("wrong-key", "x"))
                .build())
        .create();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> "False/RootSecretInvalid".equals(condition("nosecret", "Ready")));

    // A downgrade once the cluster runs 11.4: refused, and the StatefulSet stays as it was.
    create("down", "flavour: MariaDB\nversion: '11.4'\nreplicas: 1");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                get("down").getStatus() != null
                    && "11.4".equals(get("down").getStatus().getVersion()));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                FX.client().apps().statefulSets().inNamespace(FX.namespace()).withName("down").get()
                    != null);
    String image =
        FX.client()
            .apps()
            .statefulSets()
            .inNamespace(FX.namespace())
            .withName("down")
            .get()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getImage();
    Edits.edit(
        FX.client().resources(MySQLCluster.class).inNamespace(FX.namespace()).withName("down"),
        c -> {
          c.getSpec().setVersion("10.11");
          return c;
        });
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/InvalidSpec".equals(condition("down", "Ready")));
    // Refused for good, not for one round: the rounds after it (a poll is at most 5 s) still
    // compare with the running 11.4.
    await()
        .during(Duration.ofSeconds(8))
        .atMost(Duration.ofSeconds(12))
        .until(() -> "False/InvalidSpec".equals(condition("down", "Ready")));
    assertThat(get("down").getStatus().getVersion()).isEqualTo("11.4");
    assertThat(get("down").getStatus().getConditions())
        .anySatisfy(x -> assertThat(x.getMessage()).contains("downgrades are refused"));
    assertThat(
            FX.client()
                .apps()
                .statefulSets()
                .inNamespace(FX.namespace())
                .withName("down")
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage())
        .isEqualTo(image);
    long invalidEvents =
        events().stream()
            .filter(e -> "InvalidSpec".equals(e.getReason()))
            .filter(e -> "down".equals(e.getInvolvedObject().getName()))
            .count();
    assertThat(invalidEvents).isEqualTo(1);
  }

  @Test
  void anImageChangeUpgradesReplicasFirstAndThePrimaryLastAfterASwitchover() {
    FX.serversFor("up", 3);
    create("up", MARIADB + "replicas: 3");
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> "True/Replicating".equals(condition("up", "Ready")));
    await("pods labelled")
        .atMost(Duration.ofSeconds(60))
        .until(() -> "primary".equals(role("up-0")) && "replica".equals(role("up-2")));
    List<String> deleted = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (var watch =
        FX.client()
            .pods()
            .inNamespace(FX.namespace())
            .watch(
                new io.fabric8.kubernetes.client.Watcher<Pod>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    if (action == Action.DELETED) {
                      deleted.add(pod.getMetadata().getName());
                    }
                  }

                  @Override
                  public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                })) {
      Edits.edit(
          FX.client().resources(MySQLCluster.class).inNamespace(FX.namespace()).withName("up"),
          c -> {
            c.getSpec().setImage("docker.io/library/mariadb:10.11.9");
            return c;
          });
      await("every pod upgraded")
          .atMost(Duration.ofSeconds(120))
          .until(
              () ->
                  deleted.size() >= 3
                      && FX.client().pods().inNamespace(FX.namespace()).list().getItems().stream()
                          .allMatch(
                              p ->
                                  p.getSpec()
                                      .getContainers()
                                      .get(0)
                                      .getImage()
                                      .equals("docker.io/library/mariadb:10.11.9"))
                      && "True/Replicating".equals(condition("up", "Ready")));
    }
    // The order of first deletions: the simulated kubelet can report a pod's deletion twice
    // (its grace-period-0 finish of the operator's delete), the operator deletes each pod once.
    assertThat(deleted.stream().distinct().toList()).containsExactly("up-2", "up-1", "up-0");
    assertThat(events())
        .filteredOn(e -> "UpgradingInstance".equals(e.getReason()))
        .hasSize(3)
        .allSatisfy(e -> assertThat(e.getCount() == null ? 1 : e.getCount()).isEqualTo(1));
    assertThat(get("up").getStatus().getPrimary()).isEqualTo("up-1");
    assertThat(events()).anySatisfy(e -> assertThat(e.getReason()).isEqualTo("SwitchedOver"));
  }

  @Test
  void anInvalidSpecHoldsBackEveryChangeButNeverTheFailover() throws Exception {
    FX.serversFor("inv", 3);
    create("inv", MARIADB + "replicas: 3");
    await("Ready")
        .atMost(Duration.ofSeconds(90))
        .until(() -> "True/Replicating".equals(condition("inv", "Ready")));
    AppClient.createSchema(FX.server("inv-0").address());
    AppClient.insert(FX.server("inv-0").address(), 1);
    // A setting the operator owns (durability) makes the spec invalid.
    Edits.edit(
        FX.client().resources(MySQLCluster.class).inNamespace(FX.namespace()).withName("inv"),
        c -> {
          c.getSpec().setServerConfig(Map.of("sync_binlog", "0"));
          return c;
        });
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/InvalidSpec".equals(condition("inv", "Ready")));
    String config =
        FX.client()
            .configMaps()
            .inNamespace(FX.namespace())
            .withName("inv-config")
            .get()
            .getData()
            .get("bosun.cnf");
    assertThat(config).contains("sync-binlog=1").doesNotContain("sync_binlog=0");

    FX.server("inv-0").kill();
    await("failover while the spec is invalid")
        .atMost(Duration.ofSeconds(90))
        .until(() -> !"inv-0".equals(get("inv").getStatus().getPrimary()));
    String primary = get("inv").getStatus().getPrimary();
    await("role label follows")
        .atMost(Duration.ofSeconds(30))
        .until(() -> "primary".equals(role(primary)));
    assertThat(AppClient.ids(FX.server(primary).address())).containsExactly(1L);
    assertThat(condition("inv", "Ready")).isEqualTo("False/InvalidSpec");
    assertThat(events()).anyMatch(e -> "FailedOver".equals(e.getReason()));
    // Nothing applied while invalid: the ConfigMap still holds the durable settings.
    assertThat(
            FX.client()
                .configMaps()
                .inNamespace(FX.namespace())
                .withName("inv-config")
                .get()
                .getData()
                .get("bosun.cnf"))
        .isEqualTo(config);
  }
}
