package dev.bosun.mysql.objects;

import dev.bosun.common.dependent.ControllerOwner;
import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.meta.EnvVars;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.meta.MetricsEndpoints;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The desired Kubernetes objects of a MySQLCluster: StatefulSet, headless / primary / replicas
 * Services, configuration ConfigMap and disruption budget. Pure functions of the cluster; no
 * password ever appears in them (pods read Secrets through environment references).
 */
public final class ClusterObjects {

  /**
   * Statements for MariaDB's init-users.sh, before the users: mariadb-install-db also creates
   * root@127.0.0.1, root@::1 and root@<host name>. Under skip-name-resolve the server ignores the
   * last (it can log in with nothing), yet mariadb-dump --system=users, which a rebuild runs, fails
   * on it (SHOW CREATE USER: error 1133), as did the fence's grants; DROP USER cannot remove a row
   * the server ignored, so the row is deleted. The official image drops these accounts itself.
   * Outside the binlog: every member runs it on its own.
   */
  static final String MARIADB_INSTALL_CLEANUP =
      """
      SET sql_log_bin = 0;
      DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1';
      DELETE FROM mysql.global_priv WHERE User = 'root' AND Host = @@hostname;
      DELETE FROM mysql.proxies_priv WHERE User = 'root' AND Host = @@hostname;
      FLUSH PRIVILEGES;
      """;

  private ClusterObjects() {}

  /** Labels of every object of the cluster. */
  public static Map<String, String> labels(MySQLCluster c) {
    return Labels.of(c, MySQLOperator.APP, MySQLOperator.COMPONENT, MySQLOperator.NAME);
  }

  /** The pod selector of the StatefulSet (stable for the cluster's life). */
  public static Map<String, String> selector(MySQLCluster c) {
    return Labels.selector(c, MySQLOperator.APP, MySQLOperator.COMPONENT);
  }

  static ObjectMeta meta(MySQLCluster c, String name) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(c.getMetadata().getNamespace())
        .withLabels(labels(c))
        .withOwnerReferences(ControllerOwner.of(c))
        .build();
  }

  /**
   * The headless Service giving each pod its stable DNS name (ready or not); with spec.metrics it
   * also names every exporter's port, for a ServiceMonitor.
   */
  public static Service headless(MySQLCluster c, ClusterModel m) {
    ServiceBuilder service =
        new ServiceBuilder()
            .withMetadata(meta(c, ClusterNames.headless(c)))
            .withNewSpec()
            .withClusterIP("None")
            .withPublishNotReadyAddresses(true)
            .withSelector(selector(c))
            .addToPorts(serverPort(m))
            .endSpec();
    if (m.exporter().enabled()) {
      service.editSpec().addToPorts(MetricsEndpoints.servicePort(m.exporter().port())).endSpec();
    }
    return service.build();
  }

  private static ServicePort serverPort(ClusterModel m) {
    return new ServicePortBuilder()
        .withName("mysql")
        .withProtocol("TCP")
        .withPort(m.port())
        .withNewTargetPort(m.port())
        .build();
  }

  /** A Service following the pods of one role (primary: read-write, replica: read-only). */
  public static Service roleService(MySQLCluster c, ClusterModel m, String role) {
    Map<String, String> sel = new LinkedHashMap<>(selector(c));
    sel.put(MySQLOperator.ROLE, role);
    String name =
        MySQLOperator.PRIMARY.equals(role)
            ? ClusterNames.primaryService(c)
            : ClusterNames.replicasService(c);
    return new ServiceBuilder()
        .withMetadata(meta(c, name))
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(sel)
        .addToPorts(serverPort(m))
        .endSpec()
        .build();
  }

  /** The server configuration: the operator's settings, then the user's extra ones. */
  public static ConfigMap config(MySQLCluster c, ClusterModel m) {
    SqlDialect d = SqlDialect.of(m.flavour());
    StringBuilder cnf = new StringBuilder("[mysqld]\n");
    // server-id is per pod: start.sh writes it from the pod's ordinal.
    for (String line : d.baseConfig(0, m.port())) {
      if (!line.startsWith("server-id=")) {
        cnf.append(line).append('\n');
      }
    }
    cnf.append("bind-address=0.0.0.0\n");
    for (Map.Entry<String, String> e : new TreeMap<>(m.serverConfig()).entrySet()) {
      cnf.append(e.getKey()).append('=').append(e.getValue()).append('\n');
    }
    String server = m.flavour() == Flavour.MARIADB ? "mariadbd" : "mysqld";
    String start =
        """
        #!/bin/sh
        # Every member boots read-only with its own server-id; the operator decides who writes.
        set -eu
        ordinal="${POD_NAME##*-}"
        mkdir -p /var/lib/mysql/bosun
        printf '[mysqld]\\nserver-id=%d\\n' "$((100 + ordinal))" > /var/lib/mysql/bosun/server-id.cnf
        exec docker-entrypoint.sh SERVER \\
          --defaults-extra-file=/etc/bosun/bosun.cnf \\
          --server-id="$((100 + ordinal))"
        """
            .replace("SERVER", server);
    String client = m.flavour() == Flavour.MARIADB ? "mariadb" : "mysql";
    String users =
        """
        #!/bin/sh
        # Run once by the image's entrypoint on an empty data directory: the replication and
        # operator users, with passwords from the cluster's Secrets (environment, never files).
        CLIENT --protocol=socket -uroot -p"$BOSUN_ROOT_PASSWORD" <<SQL
        INSTALL_CLEANUPCREATE USER IF NOT EXISTS 'bosun_repl'@'%' IDENTIFIED BY '$BOSUN_REPLICATION_PASSWORD';
        GRANT REPLICATION SLAVE ON *.* TO 'bosun_repl'@'%';
        CREATE USER IF NOT EXISTS 'bosun_operator'@'%' IDENTIFIED BY '$BOSUN_OPERATOR_PASSWORD';
        GRANT ALL PRIVILEGES ON *.* TO 'bosun_operator'@'%' WITH GRANT OPTION;
        METRICS_USERSQL
        """
            .replace("CLIENT", client)
            .replace(
                "INSTALL_CLEANUP", m.flavour() == Flavour.MARIADB ? MARIADB_INSTALL_CLEANUP : "")
            .replace("METRICS_USER", metricsUserSql(d, m));
    return new ConfigMapBuilder()
        .withMetadata(meta(c, ClusterNames.config(c)))
        .addToData("bosun.cnf", cnf.toString())
        .addToData("start.sh", start)
        .addToData("init-users.sh", users)
        .build();
  }

  /**
   * The metrics user's statements for init-users.sh while spec.metrics is on (the shell fills in
   * the password from the environment), each on its own line; nothing otherwise.
   */
  private static String metricsUserSql(SqlDialect d, ClusterModel m) {
    if (!m.exporter().enabled()) {
      return "";
    }
    StringBuilder sql = new StringBuilder();
    for (String statement : d.metricsUser("$" + ExporterSidecar.PASSWORD_VAR)) {
      sql.append(statement).append(";\n");
    }
    return sql.toString();
  }

  /**
   * The StatefulSet: pods start in parallel (the operator, not pod order, decides the primary) and
   * are replaced only when the operator deletes them (OnDelete), so upgrades go replicas first and
   * the primary last, after a switchover.
   */
  public static StatefulSet statefulSet(MySQLCluster c, ClusterModel m, int replicas) {
    String rootVar =
        m.flavour() == Flavour.MARIADB ? "MARIADB_ROOT_PASSWORD" : "MYSQL_ROOT_PASSWORD";
    List<EnvVar> env =
        List.<EnvVar>of(
            new EnvVarBuilder()
                .withName("POD_NAME")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("metadata.name")
                .endFieldRef()
                .endValueFrom()
                .build(),
            EnvVars.fromSecret(rootVar, ClusterNames.rootSecret(c), ClusterNames.rootSecretKey(c)),
            EnvVars.fromSecret(
                "BOSUN_ROOT_PASSWORD", ClusterNames.rootSecret(c), ClusterNames.rootSecretKey(c)),
            EnvVars.fromSecret(
                "BOSUN_REPLICATION_PASSWORD", ClusterNames.replicationSecret(c), "password"),
            EnvVars.fromSecret(
                "BOSUN_OPERATOR_PASSWORD", ClusterNames.operatorSecret(c), "password"));
    if (m.exporter().enabled()) {
      // For init-users.sh on an empty data directory.
      env = new ArrayList<>(env);
      env.add(
          EnvVars.fromSecret(
              ExporterSidecar.PASSWORD_VAR, ClusterNames.metricsSecret(c), "password"));
    }
    Map<String, Quantity> requests = new TreeMap<>();
    m.requests().forEach((k, v) -> requests.put(k, new Quantity(v)));
    Map<String, Quantity> limits = new TreeMap<>();
    m.limits().forEach((k, v) -> limits.put(k, new Quantity(v)));
    var pvc =
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName("data")
            .withLabels(labels(c))
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withStorageClassName(m.storageClassName())
            .withNewResources()
            .addToRequests("storage", new Quantity(m.storageSize()))
            .endResources()
            .endSpec()
            .build();
    Map<String, String> podLabels = new LinkedHashMap<>(labels(c));
    Map<String, String> podAnnotations =
        m.exporter().enabled() ? ExporterSidecar.annotations(m) : Map.of();
    StatefulSet sts =
        new StatefulSetBuilder()
            .withMetadata(meta(c, c.getMetadata().getName()))
            .withNewSpec()
            .withReplicas(replicas)
            .withServiceName(ClusterNames.headless(c))
            .withPodManagementPolicy("Parallel")
            .withNewUpdateStrategy()
            .withType("OnDelete")
            .endUpdateStrategy()
            .withNewSelector()
            .withMatchLabels(selector(c))
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .withLabels(podLabels)
            .withAnnotations(podAnnotations.isEmpty() ? null : podAnnotations)
            .endMetadata()
            .withNewSpec()
            .withTerminationGracePeriodSeconds(60L)
            .withEnableServiceLinks(false)
            .addNewContainer()
            .withName(MySQLOperator.CONTAINER)
            .withImage(m.image())
            .withCommand("/bin/sh", "/etc/bosun/start.sh")
            // The log's tail becomes the termination message of a server that exits with an
            // error: how the operator tells a crash recovery that cannot finish from a bad
            // setting, with no read of the log.
            .withTerminationMessagePolicy("FallbackToLogsOnError")
            .withEnv(env)
            .addNewPort()
            .withName("mysql")
            .withProtocol("TCP")
            .withContainerPort(m.port())
            .endPort()
            .withNewReadinessProbe()
            .withNewTcpSocket()
            .withNewPort(m.port())
            .endTcpSocket()
            .withPeriodSeconds(5)
            .endReadinessProbe()
            .withNewLivenessProbe()
            .withNewTcpSocket()
            .withNewPort(m.port())
            .endTcpSocket()
            .withInitialDelaySeconds(60)
            .withPeriodSeconds(10)
            .withFailureThreshold(6)
            .endLivenessProbe()
            .withNewResources()
            .withRequests(requests)
            .withLimits(limits)
            .endResources()
            .addNewVolumeMount()
            .withName("data")
            .withMountPath("/var/lib/mysql")
            .endVolumeMount()
            .addNewVolumeMount()
            .withName("config")
            .withMountPath("/etc/bosun")
            .endVolumeMount()
            .addNewVolumeMount()
            .withName("config")
            .withMountPath("/docker-entrypoint-initdb.d/10-bosun-users.sh")
            .withSubPath("init-users.sh")
            .endVolumeMount()
            .endContainer()
            .addNewVolume()
            .withName("config")
            .withNewConfigMap()
            .withName(ClusterNames.config(c))
            .endConfigMap()
            .endVolume()
            .endSpec()
            .endTemplate()
            .withVolumeClaimTemplates(pvc)
            .endSpec()
            .build();
    if (m.exporter().enabled()) {
      sts.getSpec().getTemplate().getSpec().getContainers().add(ExporterSidecar.container(c, m));
    }
    return sts;
  }

  /** At most one member down by choice at a time (drains, upgrades). */
  public static DisruptionBudget disruptionBudget(MySQLCluster c) {
    return new DisruptionBudget(c.getMetadata().getName(), labels(c), selector(c), null, 1);
  }
}
