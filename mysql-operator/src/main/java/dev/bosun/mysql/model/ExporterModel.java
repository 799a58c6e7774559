package dev.bosun.mysql.model;

import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.Metrics;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@code spec.metrics} with every default applied: the mysqld_exporter sidecar of each Pod. */
public record ExporterModel(
    boolean enabled,
    int port,
    String image,
    List<String> command,
    Map<String, String> requests,
    Map<String, String> limits) {

  /** The exporter's conventional port. */
  public static final int DEFAULT_PORT = 9104;

  /** The upstream image of the mysqld_exporter version whose flags the sidecar uses. */
  public static final String DEFAULT_IMAGE = "docker.io/prom/mysqld-exporter:v0.14.0";

  /** Maps a spec's metrics. */
  public static ExporterModel of(MySQLClusterSpec s) {
    Metrics m = s.getMetrics() == null ? new Metrics() : s.getMetrics();
    Map<String, String> requests = new TreeMap<>(Map.of("cpu", "10m", "memory", "32Mi"));
    Map<String, String> limits = new TreeMap<>(Map.of("memory", "64Mi"));
    if (m.getResources() != null) {
      var r = m.getResources().getRequests();
      if (r != null) {
        ClusterModel.putCpuMemory(requests, r.getCpu(), r.getMemory());
      }
      var l = m.getResources().getLimits();
      if (l != null) {
        ClusterModel.putCpuMemory(limits, l.getCpu(), l.getMemory());
      }
    }
    return new ExporterModel(
        Boolean.TRUE.equals(m.getEnabled()),
        m.getPort() == null ? DEFAULT_PORT : m.getPort(),
        m.getImage() == null ? DEFAULT_IMAGE : m.getImage(),
        m.getCommand() == null ? List.of() : List.copyOf(m.getCommand()),
        requests,
        limits);
  }
}
