package dev.bosun.etcd.reconciler;

import dev.bosun.common.schedule.CronSchedule;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.maintenance.Compaction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The rules the schema cannot state (a 1.20 API server does not evaluate the CEL rules in the CRD,
 * and the running versions are only known here). A spec breaking one is reported as InvalidSpec and
 * nothing is changed.
 */
public final class EtcdClusterValidator {

  private EtcdClusterValidator() {}

  /**
   * Problems with the spec, given the versions the members currently run (empty for a new cluster).
   */
  public static List<String> validate(EtcdClusterSpec spec, Collection<String> runningVersions) {
    List<String> problems = new ArrayList<>();
    String version = spec.getVersion();
    if (version == null || !SupportedVersions.supported(version)) {
      problems.add(
          "version "
              + version
              + " is not supported; supported versions: "
              + String.join(", ", SupportedVersions.ALL));
    } else {
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
    }
    var tls = spec.getTls();
    if (tls != null
        && (tls.getServerSecretName() == null) != (tls.getOperatorSecretName() == null)) {
      problems.add("tls.serverSecretName and tls.operatorSecretName go together");
    }
    var maintenance = spec.getMaintenance();
    if (maintenance != null) {
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
    }
    return problems;
  }
}
