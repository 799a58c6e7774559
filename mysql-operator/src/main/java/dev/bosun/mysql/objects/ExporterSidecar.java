package dev.bosun.mysql.objects;

import dev.bosun.common.meta.EnvVars;
import dev.bosun.common.meta.MetricsEndpoints;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.model.ExporterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The mysqld_exporter sidecar of an instance's Pod ({@code spec.metrics}): it reaches its own
 * server on the Pod's loopback as the metrics user, whose password comes from the cluster's metrics
 * Secret through the environment and never appears in the Pod spec.
 */
public final class ExporterSidecar {

  /** The sidecar's container name. */
  public static final String CONTAINER = "mysqld-exporter";

  /** The variable holding the metrics user's password. */
  public static final String PASSWORD_VAR = "BOSUN_METRICS_PASSWORD";

  /** The user the sidecar runs as (nobody: it needs no file of its own). */
  static final long USER = 65534L;

  private ExporterSidecar() {}

  /** The sidecar container. */
  public static Container container(MySQLCluster c, ClusterModel m) {
    ExporterModel e = m.exporter();
    SqlDialect dialect = SqlDialect.of(m.flavour());
    // Kubernetes expands $(VAR) from the variables defined before it: the DSN names the password
    // variable, so the password stays out of the Pod spec.
    String dsn =
        dataSourceName(dialect, "$(" + PASSWORD_VAR + ")", dialect.metricsHost(), m.port());
    ContainerBuilder container =
        new ContainerBuilder()
            .withName(CONTAINER)
            .withImage(e.image())
            .withArgs(args(":" + e.port()))
            .withEnv(
                EnvVars.fromSecret(PASSWORD_VAR, ClusterNames.metricsSecret(c), "password"),
                EnvVars.of("DATA_SOURCE_NAME", dsn))
            .withPorts(MetricsEndpoints.containerPort(e.port()))
            .withNewResources()
            .withRequests(quantities(e.requests()))
            .withLimits(quantities(e.limits()))
            .endResources()
            .withNewLivenessProbe()
            .withNewHttpGet()
            .withPath("/")
            .withNewPort(MetricsEndpoints.PORT_NAME)
            .endHttpGet()
            .withPeriodSeconds(20)
            .withTimeoutSeconds(5)
            .withFailureThreshold(3)
            .endLivenessProbe()
            .withNewSecurityContext()
            .withRunAsNonRoot(true)
            .withRunAsUser(USER)
            .withRunAsGroup(USER)
            .withAllowPrivilegeEscalation(false)
            .withReadOnlyRootFilesystem(true)
            .withNewCapabilities()
            .withDrop("ALL")
            .endCapabilities()
            .endSecurityContext();
    if (!e.command().isEmpty()) {
      container.withCommand(e.command());
    }
    return container.build();
  }

  /** The exporter's flags (mysqld_exporter 0.14), serving on {@code listenAddress}. */
  public static List<String> args(String listenAddress) {
    return List.of(
        "--web.listen-address=" + listenAddress,
        "--web.telemetry-path=" + MetricsEndpoints.PATH,
        // A scrape must never hold metadata locks long on a busy primary.
        "--exporter.lock_wait_timeout=2");
  }

  /** The Go MySQL driver's DSN mysqld_exporter reads from DATA_SOURCE_NAME. */
  public static String dataSourceName(SqlDialect dialect, String password, String host, int port) {
    return dialect.metricsUser() + ":" + password + "@tcp(" + host + ":" + port + ")/";
  }

  /** The Pod annotations announcing the exporter. */
  static Map<String, String> annotations(ClusterModel m) {
    return MetricsEndpoints.scrapeAnnotations(m.exporter().port());
  }

  private static Map<String, Quantity> quantities(Map<String, String> values) {
    Map<String, Quantity> q = new TreeMap<>();
    values.forEach((k, v) -> q.put(k, new Quantity(v)));
    return q;
  }
}
