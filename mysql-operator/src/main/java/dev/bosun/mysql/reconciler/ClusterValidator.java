package dev.bosun.mysql.reconciler;

import dev.bosun.common.meta.KubernetesNames;
import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.model.AccountModel;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.model.ExporterModel;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules a 1.20 API server cannot check (CEL) and those that need the status: a flavour change,
 * a version downgrade, settings the operator owns, a switchover target outside the cluster, and a
 * name its children cannot carry.
 */
final class ClusterValidator {

  /**
   * Longest usable cluster name: the StatefulSet labels each Pod with {@code
   * controller-revision-hash=<name>-<10-character hash>}, a label value of at most 63 characters.
   */
  static final int NAME_MAX = KubernetesNames.LABEL_VALUE_MAX - 11;

  /**
   * The shortest semi-sync timeout allowed: an fsync stall or a busy replica must not turn the
   * primary asynchronous (the schema's minimum says the same for new objects).
   */
  static final long SEMI_SYNC_TIMEOUT_FLOOR_MILLIS = 10_000;

  /** Account names an application account may not take. */
  static final Set<String> RESERVED_ACCOUNTS = Set.of("root", "mysql");

  /** Schemas an application account may not be given. */
  static final Set<String> RESERVED_DATABASES =
      Set.of("mysql", "information_schema", "performance_schema", "sys", "bosun");

  private ClusterValidator() {}

  static List<String> validate(ClusterModel m, MySQLClusterStatus status) {
    List<String> problems = new ArrayList<>();
    nameProblem(m.name()).ifPresent(problems::add);
    versionProblems(m, problems);
    if (m.exporter().enabled() && m.exporter().port() == m.port()) {
      problems.add(
          "metrics.port "
              + m.exporter().port()
              + " is the server's port; the exporter needs its own (the default is "
              + ExporterModel.DEFAULT_PORT
              + ")");
    }
    List<String> owned = SqlDialect.of(m.flavour()).ownedSettings();
    for (String key : new TreeSet<>(m.serverConfig().keySet())) {
      ServerConfigKeys.problem(key, owned).ifPresent(problems::add);
    }
    m.accounts().forEach(a -> accountProblems(a, problems));
    if (m.semiSyncTimeoutMillis() < SEMI_SYNC_TIMEOUT_FLOOR_MILLIS) {
      problems.add(
          "semiSync.timeoutMilliseconds "
              + m.semiSyncTimeoutMillis()
              + " is below the floor of "
              + SEMI_SYNC_TIMEOUT_FLOOR_MILLIS
              + ": a replica that is only slow for a moment would turn the primary asynchronous,"
              + " and commits would be acknowledged without a replica copy");
    }
    runningProblems(m, status, problems);
    switchoverProblem(m).ifPresent(problems::add);
    return problems;
  }

  /** The versions each flavour supports. */
  private static void versionProblems(ClusterModel m, List<String> problems) {
    if (m.flavour() == Flavour.MYSQL && !m.version().startsWith("8.4")) {
      problems.add("the MySQL flavour supports version 8.4.x, not " + m.version());
    }
    if (m.flavour() == Flavour.MARIADB
        && !(m.version().startsWith("10.11") || m.version().startsWith("11."))) {
      problems.add("the MariaDB flavour supports versions 10.11.x and 11.x, not " + m.version());
    }
  }

  /** Names and schemas an application account may not take. */
  private static void accountProblems(AccountModel a, List<String> problems) {
    if (RESERVED_ACCOUNTS.contains(a.name()) || a.name().startsWith("bosun_")) {
      problems.add(
          "users["
              + a.name()
              + "]: the name is kept for the server or the operator (root, mysql.*,"
              + " bosun_*); choose another");
    }
    for (String db : a.databases()) {
      if (RESERVED_DATABASES.contains(db.toLowerCase(Locale.ROOT))) {
        problems.add(
            "users["
                + a.name()
                + "].databases: "
                + db
                + " is a system schema; an application account gets its own databases");
      }
    }
  }

  /** What the running cluster rules out: another flavour, a lower version. */
  private static void runningProblems(
      ClusterModel m, MySQLClusterStatus status, List<String> problems) {
    if (status != null && status.getFlavour() != null) {
      String running = status.getFlavour();
      if (!running.equalsIgnoreCase(m.flavour() == Flavour.MARIADB ? "MariaDB" : "MySQL")) {
        problems.add("the flavour cannot change (the cluster runs " + running + ")");
      }
    }
    if (status != null
        && status.getVersion() != null
        && compareVersions(m.version(), status.getVersion()) < 0) {
      problems.add(
          "version "
              + m.version()
              + " is lower than the running "
              + status.getVersion()
              + ": downgrades are refused (restore a backup into a new cluster instead)");
    }
  }

  /** A switchover target that is not one of this cluster's instances. */
  private static Optional<String> switchoverProblem(ClusterModel m) {
    String target = m.switchoverTarget();
    if (target == null) {
      return Optional.empty();
    }
    String prefix = m.name() + "-";
    int ordinal = -1;
    if (target.startsWith(prefix)) {
      try {
        ordinal = Integer.parseInt(target.substring(prefix.length()));
      } catch (NumberFormatException e) {
        ordinal = -1;
      }
    }
    if (ordinal >= 0 && ordinal < m.replicas()) {
      return Optional.empty();
    }
    return Optional.of(
        "switchover.target "
            + target
            + " is not an instance of this cluster ("
            + prefix
            + "0 to "
            + prefix
            + (m.replicas() - 1)
            + ")");
  }

  /**
   * The rule a cluster name breaks through the names of its children, or empty: the API server
   * accepts a MySQLCluster name of up to 253 characters with dots, but the Services {@code
   * <name>-headless}, {@code <name>-primary} and {@code <name>-replicas} must be DNS-1035 labels,
   * and the Pods' revision label must stay a valid label value. Nothing can be created for such a
   * name, and a name cannot change.
   */
  static Optional<String> nameProblem(String name) {
    return KubernetesNames.dns1035Label("the headless Service name", name + "-headless")
        .or(() -> KubernetesNames.dns1035Label("the primary Service name", name + "-primary"))
        .or(() -> KubernetesNames.dns1035Label("the replicas Service name", name + "-replicas"))
        .or(
            () ->
                name.length() <= NAME_MAX
                    ? Optional.empty()
                    : Optional.of(
                        "the StatefulSet's controller-revision-hash label value '<name>-<10-character"
                            + " hash>' would be "
                            + (name.length() + 11)
                            + " characters long; at most "
                            + KubernetesNames.LABEL_VALUE_MAX
                            + " are allowed"))
        .map(
            rule ->
                "metadata.name: the Services, the StatefulSet and its Pods are named after the"
                    + " MySQLCluster, and "
                    + rule
                    + "; create the cluster under a name of at most "
                    + NAME_MAX
                    + " characters that starts with a letter and has no '.'");
  }

  /**
   * Compares dotted versions numerically over the parts both name: "8.4" and "8.4.3" are the same
   * line, "10.11" is below "11.4".
   */
  static int compareVersions(String a, String b) {
    String[] pa = a.split("\\.");
    String[] pb = b.split("\\.");
    for (int i = 0; i < Math.min(pa.length, pb.length); i++) {
      int x = Integer.parseInt(pa[i]);
      int y = Integer.parseInt(pb[i]);
      if (x != y) {
        return Integer.compare(x, y);
      }
    }
    return 0;
  }
}
