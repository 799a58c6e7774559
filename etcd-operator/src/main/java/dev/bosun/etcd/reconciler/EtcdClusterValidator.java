package dev.bosun.etcd.reconciler;

import dev.bosun.common.meta.KubernetesNames;
import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.etcd.objects.MemberMetrics;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.MemberNames;
import dev.bosun.etcd.plan.ServiceAddressing;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Compaction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The rules the schema cannot state (a 1.20 API server does not evaluate the CEL rules in the CRD,
 * and the running versions are only known here), and a cluster name its Services and member Pods
 * cannot carry. A spec breaking one is reported as InvalidSpec and nothing is changed.
 */
public final class EtcdClusterValidator {

  /** Longest usable cluster name: {@code <name>-client} must be a 63-character DNS-1035 label. */
  public static final int NAME_MAX = KubernetesNames.LABEL_MAX - "-client".length();

  /** Highest member index a name is checked for: {@link MemberNames} never uses more digits. */
  private static final int HIGHEST_INDEX = 9999;

  private EtcdClusterValidator() {}

  /**
   * Problems with the cluster named {@code name} and its spec, given the versions the members
   * currently run (empty for a new cluster).
   */
  public static List<String> validate(
      String name, EtcdClusterSpec spec, Collection<String> runningVersions) {
    List<String> problems = new ArrayList<>();
    nameProblem(name).ifPresent(problems::add);
    problems.addAll(versionProblems(spec.getVersion(), runningVersions));
    var tls = spec.getTls();
    if (tls != null
        && (tls.getServerSecretName() == null) != (tls.getOperatorSecretName() == null)) {
      problems.add("tls.serverSecretName and tls.operatorSecretName go together");
    }
    MemberMetrics.port(spec)
        .filter(p -> p == MemberAddressing.CLIENT_PORT || p == MemberAddressing.PEER_PORT)
        .ifPresent(p -> problems.add(metricsPortProblem(p)));
    if (spec.getMaintenance() != null) {
      problems.addAll(maintenanceProblems(spec.getMaintenance()));
    }
    return problems;
  }

  /** An unsupported version, or one the running members cannot move to (a downgrade, a skip). */
  static List<String> versionProblems(String version, Collection<String> runningVersions) {
    if (version == null || !SupportedVersions.supported(version)) {
      return List.of(
          "version "
              + version
              + " is not supported; supported versions: "
              + String.join(", ", SupportedVersions.ALL));
    }
    List<String> problems = new ArrayList<>();
    for (String running : runningVersions.stream().distinct().sorted().toList()) {
      if (SupportedVersions.ORDER.compare(version, running) < 0) {
        problems.add(
            "version "
                + version
                + " is older than "
                + running
                + ", which members run: etcd does not support downgrades; restore a backup"
                + " into a new cluster instead");
      } else if (SupportedVersions.part(version, 0) != SupportedVersions.part(running, 0)
          || SupportedVersions.part(version, 1) - SupportedVersions.part(running, 1) > 1) {
        problems.add(
            "version "
                + version
                + " skips a minor version from "
                + running
                + ": etcd upgrades one minor version at a time");
      }
    }
    return problems;
  }

  /** A revision retention that is a duration, and a defragmentation schedule that is no cron. */
  private static List<String> maintenanceProblems(Maintenance maintenance) {
    List<String> problems = new ArrayList<>();
    var compaction = maintenance.getCompaction();
    if (compaction != null
        && compaction.getMode() == Compaction.Mode.REVISION
        && compaction.getRetention() != null
        && !compaction.getRetention().matches("[0-9]+")) {
      problems.add(
          "maintenance.compaction.retention "
              + compaction.getRetention()
              + " is a duration, but mode Revision keeps a number of revisions (for example"
              + " 10000)");
    }
    var defrag = maintenance.getDefragmentation();
    if (defrag != null && defrag.getSchedule() != null) {
      try {
        CronSchedule.parse(defrag.getSchedule());
      } catch (IllegalArgumentException e) {
        problems.add("maintenance.defragmentation.schedule: " + e.getMessage());
      }
    }
    return problems;
  }

  /** The problem of a metrics port on etcd's client or peer port {@code port}. */
  static String metricsPortProblem(int port) {
    return "metrics.port "
        + port
        + " is etcd's client or peer port; choose another (the default is "
        + MemberMetrics.DEFAULT_PORT
        + ")";
  }

  /**
   * The rule a cluster name breaks through its children, or empty: the API server accepts an
   * EtcdCluster name of up to 253 characters with dots, but the Services {@code <name>-peer} and
   * {@code <name>-client} must be DNS-1035 labels and a member Pod's name {@code <name>-<index>} is
   * its hostname, a DNS-1123 label.
   */
  static Optional<String> nameProblem(String name) {
    String member = MemberNames.name(name, HIGHEST_INDEX);
    return KubernetesNames.dns1035Label(
            "the peer Service name", ServiceAddressing.peerService(name))
        .or(
            () ->
                KubernetesNames.dns1035Label(
                    "the client Service name", ServiceAddressing.clientService(name)))
        .or(() -> KubernetesNames.dns1123Label("the member Pod's hostname", member))
        .map(
            rule ->
                "metadata.name: the Services and member Pods are named after the EtcdCluster, and "
                    + rule
                    + "; create the cluster under a name of at most "
                    + NAME_MAX
                    + " characters that starts with a letter and has no '.'");
  }
}
