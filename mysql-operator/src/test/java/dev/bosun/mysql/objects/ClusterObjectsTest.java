package dev.bosun.mysql.objects;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.Metrics;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.Resources;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.RootPasswordSecret;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.resources.Requests;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The desired Kubernetes objects of a cluster. */
public class ClusterObjectsTest {

  public static MySQLCluster cluster(MySQLClusterSpec spec) {
    MySQLCluster c = new MySQLCluster();
    c.setMetadata(
        new ObjectMetaBuilder().withName("db").withNamespace("shop").withUid("u-1").build());
    c.setSpec(spec);
    return c;
  }

  static MySQLCluster withMetrics(Metrics metrics) {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setFlavour(MySQLClusterSpec.Flavour.MARIADB);
    spec.setVersion("10.11");
    spec.setMetrics(metrics);
    return cluster(spec);
  }

  @Test
  void withoutMetricsThereIsNoExporterNoMetricsPortAndNoMetricsUser() {
    MySQLCluster c = withMetrics(null);
    ClusterModel m = ClusterModel.of(c);
    var pod = ClusterObjects.statefulSet(c, m, 3).getSpec().getTemplate();

    assertThat(pod.getSpec().getContainers())
        .extracting(Container::getName)
        .containsExactly("mysql");
    assertThat(pod.getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(pod.getSpec().getContainers().get(0).getEnv())
        .extracting(EnvVar::getName)
        .doesNotContain(ExporterSidecar.PASSWORD_VAR);
    assertThat(ClusterObjects.headless(c, m).getSpec().getPorts())
        .extracting(ServicePort::getName)
        .containsExactly("mysql");
    assertThat(ClusterObjects.config(c, m).getData().get("init-users.sh"))
        .doesNotContain("bosun_metrics");
  }

  @Test
  void mariaDbInitDropsTheRootAccountsInstallDbLeavesBeforeTheUsersOutsideTheBinlog() {
    MySQLCluster c = withMetrics(null);
    String init = ClusterObjects.config(c, ClusterModel.of(c)).getData().get("init-users.sh");
    assertThat(init)
        .contains(
            "<<SQL\nSET sql_log_bin = 0;\n",
            "DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1';\n",
            "DELETE FROM mysql.global_priv WHERE User = 'root' AND Host = @@hostname;\n",
            "DELETE FROM mysql.proxies_priv WHERE User = 'root' AND Host = @@hostname;\n"
                + "FLUSH PRIVILEGES;\nCREATE USER IF NOT EXISTS 'bosun_repl'@'%'");
  }

  @Test
  void withMetricsEachPodRunsAnExporterOnItsOwnServerAsTheMetricsUser() {
    Metrics metrics = new Metrics();
    metrics.setEnabled(true);
    MySQLCluster c = withMetrics(metrics);
    ClusterModel m = ClusterModel.of(c);
    var pod = ClusterObjects.statefulSet(c, m, 3).getSpec().getTemplate();
    Container exporter = pod.getSpec().getContainers().get(1);

    assertThat(exporter.getName()).isEqualTo("mysqld-exporter");
    assertThat(exporter.getImage()).isEqualTo("docker.io/prom/mysqld-exporter:v0.14.0");
    assertThat(exporter.getCommand()).isEmpty();
    assertThat(exporter.getArgs())
        .contains("--web.listen-address=:9104", "--web.telemetry-path=/metrics");
    assertThat(exporter.getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("metrics");
              assertThat(p.getContainerPort()).isEqualTo(9104);
            });
    // The password is a Secret reference; the DSN only names its variable.
    assertThat(exporter.getEnv())
        .extracting(EnvVar::getName)
        .containsExactly(ExporterSidecar.PASSWORD_VAR, "DATA_SOURCE_NAME");
    assertThat(exporter.getEnv().get(0).getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("db-metrics");
    assertThat(exporter.getEnv().get(1).getValue())
        .isEqualTo("bosun_metrics:$(BOSUN_METRICS_PASSWORD)@tcp(127.0.0.1:3306)/");
    assertThat(exporter.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(exporter.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(exporter.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(exporter.getResources().getRequests())
        .containsEntry("cpu", new Quantity("10m"))
        .containsEntry("memory", new Quantity("32Mi"));
    assertThat(exporter.getResources().getLimits()).containsEntry("memory", new Quantity("64Mi"));
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry("prometheus.io/scrape", "true")
        .containsEntry("prometheus.io/port", "9104")
        .containsEntry("prometheus.io/path", "/metrics");
    assertThat(ClusterObjects.headless(c, m).getSpec().getPorts())
        .filteredOn(p -> p.getName().equals("metrics"))
        .singleElement()
        .satisfies(p -> assertThat(p.getPort()).isEqualTo(9104));
    // A new data directory gets the user at initialisation, with the password from the Secret.
    assertThat(pod.getSpec().getContainers().get(0).getEnv())
        .extracting(EnvVar::getName)
        .contains(ExporterSidecar.PASSWORD_VAR);
    assertThat(ClusterObjects.config(c, m).getData().get("init-users.sh"))
        .contains(
            "CREATE USER IF NOT EXISTS 'bosun_metrics'@'127.0.0.1' IDENTIFIED BY"
                + " '$BOSUN_METRICS_PASSWORD' WITH MAX_USER_CONNECTIONS 3;",
            "GRANT PROCESS, BINLOG MONITOR, REPLICA MONITOR ON *.* TO 'bosun_metrics'@'127.0.0.1';",
            "GRANT SELECT ON performance_schema.* TO 'bosun_metrics'@'127.0.0.1';\nSQL\n");
  }

  @Test
  void theExportersPortImageCommandAndResourcesComeFromTheSpec() {
    Metrics metrics = new Metrics();
    metrics.setEnabled(true);
    metrics.setPort(9200);
    metrics.setImage("docker.io/bosun/workloads:1");
    metrics.setCommand(java.util.List.of("/usr/bin/prometheus-mysqld-exporter"));
    var resources = new dev.bosun.mysql.v1alpha1.mysqlclusterspec.metrics.Resources();
    var limits = new dev.bosun.mysql.v1alpha1.mysqlclusterspec.metrics.resources.Limits();
    limits.setCpu("100m");
    resources.setLimits(limits);
    metrics.setResources(resources);
    MySQLCluster c = withMetrics(metrics);
    Container exporter =
        ClusterObjects.statefulSet(c, ClusterModel.of(c), 1)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(1);

    assertThat(exporter.getImage()).isEqualTo("docker.io/bosun/workloads:1");
    assertThat(exporter.getCommand()).containsExactly("/usr/bin/prometheus-mysqld-exporter");
    assertThat(exporter.getArgs()).contains("--web.listen-address=:9200");
    assertThat(exporter.getResources().getLimits())
        .containsEntry("cpu", new Quantity("100m"))
        .containsEntry("memory", new Quantity("64Mi"));
  }

  @Test
  void theStatefulSetStartsPodsInParallelUpdatesOnDeleteAndReadsPasswordsFromSecrets() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setReplicas(3);
    Requests req = new Requests();
    req.setCpu("500m");
    Resources res = new Resources();
    res.setRequests(req);
    spec.setResources(res);
    MySQLCluster c = cluster(spec);
    var sts = ClusterObjects.statefulSet(c, ClusterModel.of(c), 3);

    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
    assertThat(sts.getSpec().getServiceName()).isEqualTo("db-headless");
    var container = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).isEqualTo("docker.io/library/mysql:8.4");
    assertThat(container.getResources().getRequests().get("cpu").toString()).isEqualTo("500m");
    assertThat(container.getEnv())
        .filteredOn(e -> e.getName().endsWith("PASSWORD"))
        .allSatisfy(e -> assertThat(e.getValue()).isNull())
        .extracting(EnvVar::getName)
        .contains("MYSQL_ROOT_PASSWORD", "BOSUN_REPLICATION_PASSWORD", "BOSUN_OPERATOR_PASSWORD");
    assertThat(
            sts.getSpec().getVolumeClaimTemplates().get(0).getSpec().getResources().getRequests())
        .containsKey("storage");
    assertThat(sts.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getController()).isTrue());
  }

  @Test
  void aNamedRootSecretIsUsedAsIs() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    RootPasswordSecret root = new RootPasswordSecret();
    root.setName("mine");
    root.setKey("pw");
    spec.setRootPasswordSecret(root);
    MySQLCluster c = cluster(spec);
    assertThat(ClusterNames.rootSecret(c)).isEqualTo("mine");
    assertThat(ClusterNames.rootSecretKey(c)).isEqualTo("pw");
    assertThat(ClusterNames.rootSecret(cluster(new MySQLClusterSpec()))).isEqualTo("db-root");
  }

  @Test
  void theRoleServicesSelectPodsByRole() {
    MySQLCluster c = cluster(new MySQLClusterSpec());
    ClusterModel m = ClusterModel.of(c);
    assertThat(ClusterObjects.roleService(c, m, MySQLOperator.PRIMARY).getSpec().getSelector())
        .containsEntry(MySQLOperator.ROLE, "primary");
    assertThat(ClusterObjects.roleService(c, m, MySQLOperator.REPLICA).getMetadata().getName())
        .isEqualTo("db-replicas");
    var headless = ClusterObjects.headless(c, m);
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(headless.getSpec().getPorts().get(0).getProtocol()).isEqualTo("TCP");
  }

  @Test
  void theConfigMapHoldsTheOperatorsSettingsThenTheUsersAndNoPassword() {
    MySQLClusterSpec spec = new MySQLClusterSpec();
    spec.setFlavour(MySQLClusterSpec.Flavour.MARIADB);
    spec.setVersion("10.11");
    spec.setServerConfig(Map.of("max_connections", "500"));
    MySQLCluster c = cluster(spec);
    var cm = ClusterObjects.config(c, ClusterModel.of(c));
    String cnf = cm.getData().get("bosun.cnf");
    assertThat(cnf).contains("read-only=ON", "gtid-strict-mode=ON", "max_connections=500");
    assertThat(cnf.indexOf("read-only=ON")).isLessThan(cnf.indexOf("max_connections"));
    assertThat(cnf).doesNotContain("server-id=");
    assertThat(cm.getData().get("start.sh")).contains("mariadbd", "server-id");
    assertThat(Serialization.asJson(cm)).doesNotContainIgnoringCase("password=");
  }

  @Test
  void theDisruptionBudgetAllowsOneMemberDown() {
    var pdb = ClusterObjects.disruptionBudget(cluster(new MySQLClusterSpec()));
    assertThat(pdb.maxUnavailable()).isEqualTo(1);
    assertThat(pdb.minAvailable()).isNull();
  }
}
