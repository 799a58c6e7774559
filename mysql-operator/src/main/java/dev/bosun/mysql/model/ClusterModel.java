package dev.bosun.mysql.model;

import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.Replication;
import dev.bosun.mysql.v1alpha1.mysqlclusterspec.bootstrap.FromBackup;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A MySQLCluster's spec with every default applied (the server defaults, repeated for safety). */
public record ClusterModel(
    String namespace,
    String name,
    int replicas,
    Flavour flavour,
    String version,
    String image,
    int port,
    String storageSize,
    String storageClassName,
    Map<String, String> requests,
    Map<String, String> limits,
    Map<String, String> serverConfig,
    boolean failoverEnabled,
    Duration failoverAfter,
    long semiSyncTimeoutMillis,
    String switchoverTarget,
    String fromBackup,
    String fromBackupKey,
    ExporterModel exporter,
    boolean rebuildAutomatic,
    List<AccountModel> accounts) {

  /** Maps a cluster's spec. */
  public static ClusterModel of(MySQLCluster c) {
    MySQLClusterSpec s = c.getSpec() == null ? new MySQLClusterSpec() : c.getSpec();
    Flavour flavour =
        s.getFlavour() == null ? Flavour.MYSQL : Flavour.fromSpec(s.getFlavour().getValue());
    String version = s.getVersion() == null ? "8.4" : s.getVersion();
    Map<String, String> requests = new TreeMap<>();
    Map<String, String> limits = new TreeMap<>();
    if (s.getResources() != null) {
      var r = s.getResources().getRequests();
      if (r != null) {
        putCpuMemory(requests, r.getCpu(), r.getMemory());
      }
      var l = s.getResources().getLimits();
      if (l != null) {
        putCpuMemory(limits, l.getCpu(), l.getMemory());
      }
    }
    var failover = s.getFailover();
    return new ClusterModel(
        c.getMetadata().getNamespace(),
        c.getMetadata().getName(),
        s.getReplicas() == null ? 3 : s.getReplicas(),
        flavour,
        version,
        s.getImage() != null ? s.getImage() : defaultImage(flavour, version),
        s.getPort() == null ? 3306 : s.getPort(),
        s.getStorage() == null || s.getStorage().getSize() == null
            ? "10Gi"
            : s.getStorage().getSize(),
        s.getStorage() == null ? null : s.getStorage().getStorageClassName(),
        requests,
        limits,
        s.getServerConfig() == null ? Map.of() : new TreeMap<>(s.getServerConfig()),
        failover == null || failover.getEnabled() == null || failover.getEnabled(),
        Duration.ofSeconds(
            failover == null || failover.getPrimaryUnavailableSeconds() == null
                ? 30
                : failover.getPrimaryUnavailableSeconds()),
        s.getSemiSync() == null || s.getSemiSync().getTimeoutMilliseconds() == null
            ? 3_600_000L
            : s.getSemiSync().getTimeoutMilliseconds(),
        s.getSwitchover() == null ? null : s.getSwitchover().getTarget(),
        fromBackup(s) == null ? null : fromBackup(s).getBackupName(),
        fromBackup(s) == null ? null : fromBackup(s).getKey(),
        ExporterModel.of(s),
        s.getReplication() != null
            && s.getReplication().getRebuild() == Replication.Rebuild.AUTOMATIC,
        AccountModel.of(c.getMetadata().getName(), s));
  }

  /** The official image of a flavour and version. */
  public static String defaultImage(Flavour flavour, String version) {
    return flavour == Flavour.MARIADB
        ? "docker.io/library/mariadb:" + version
        : "docker.io/library/mysql:" + version;
  }

  /** Sets {@code cpu} and {@code memory} in {@code m} where the spec gives them. */
  /** The backup a new cluster starts from ({@code spec.bootstrap.fromBackup}), or null. */
  private static FromBackup fromBackup(MySQLClusterSpec s) {
    return s.getBootstrap() == null ? null : s.getBootstrap().getFromBackup();
  }

  static void putCpuMemory(Map<String, String> m, String cpu, String memory) {
    if (cpu != null) {
      m.put("cpu", cpu);
    }
    if (memory != null) {
      m.put("memory", memory);
    }
  }
}
