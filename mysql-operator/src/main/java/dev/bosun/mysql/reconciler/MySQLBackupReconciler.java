package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackgroundJobs;
import dev.bosun.common.backup.BackupReconciler;
import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.HumanText;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.backup.BackupSource;
import dev.bosun.mysql.backup.JobFailures;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.Addressing;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLBackupStatus;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.mysqlclusterstatus.Instances;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Takes a MySQLCluster's logical backups ({@link BackupReconciler}'s steps): a dump from a healthy
 * replica known good and level with the primary ({@link BackupSource}; the primary only when it is
 * alone), with the GTID it was taken at.
 */
@ControllerConfiguration(fieldManager = MySQLOperator.NAME)
public class MySQLBackupReconciler
    extends BackupReconciler<
        MySQLBackup, MySQLBackupStatus, MySQLCluster, MySQLBackupReconciler.DumpRun> {

  /** How long a replica may take to apply what the primary holds when its backup starts. */
  static final Duration CATCH_UP = Duration.ofSeconds(60);

  private final Addressing addressing;
  private final MySQLBackupStores stores;

  public MySQLBackupReconciler(
      EventRecorder events, Addressing addressing, MySQLBackupStores stores, Clock clock) {
    // Dumps take as long as the data is large: never on a reconcile thread. Two at a time here.
    super(
        MySQLCluster.class,
        MySQLBackupStatus.class,
        new BackgroundJobs<>("mysql-backup", 2, 32, JobFailures::describe),
        events,
        clock);
    this.addressing = addressing;
    this.stores = stores;
  }

  /** One dump taken in the background: from where, and what the dump client reported. */
  record DumpRun(String source, LogicalDump.Result result) {}

  @Override
  public BackupRequest request(MySQLBackup b) {
    return new BackupRequest(
        b.getSpec().getClusterName(), b.getSpec().getSchedule(), b.getSpec().getKeep());
  }

  @Override
  public BackupTarget openStore(MySQLBackup b, KubernetesClient client)
      throws BackupStoreException {
    return stores.open(b);
  }

  @Override
  public Start<DumpRun> start(
      MySQLBackup b,
      MySQLCluster cluster,
      BackupTarget target,
      Instant now,
      KubernetesClient client) {
    Sources sources = sources(cluster);
    if (sources.problem() != null) {
      return new Blocked<>(
          "NoSource",
          "MySQLCluster " + b.getSpec().getClusterName() + " " + sources.problem(),
          Duration.ofSeconds(10));
    }
    ClusterSecrets.Found secrets = ClusterSecrets.ensure(client, cluster);
    if (secrets.credentials() == null) {
      return new Blocked<>(secrets.problemReason(), secrets.problem(), Duration.ofSeconds(30));
    }
    ClusterModel m = ClusterModel.of(cluster);
    SqlDialect dialect = SqlDialect.of(m.flavour());
    String key = target.newKey(now, "sql");
    LogicalDump dump = new LogicalDump(dialect, secrets.credentials(), Duration.ofSeconds(10));
    BackupSource fit =
        new BackupSource(dialect, secrets.credentials(), Duration.ofSeconds(10), CATCH_UP);
    Address primary = addressing.of(m.namespace(), m.name(), sources.primary(), m.port());
    List<BackupSource.Candidate> replicas =
        sources.replicas().stream()
            .map(
                n ->
                    new BackupSource.Candidate(
                        n, addressing.of(m.namespace(), m.name(), n, m.port())))
            .toList();
    return new Job<>(
        "dump of " + String.join(" or ", sources.names()) + " into " + key,
        key,
        bytes -> {
          BackupSource.Candidate from =
              fit.from(
                  new BackupSource.Candidate(sources.primary(), primary),
                  replicas,
                  sources.verifiedStarts());
          return new DumpRun(from.name(), dump.dump(from.address(), target.store(), key, bytes));
        });
  }

  @Override
  public Recorded recorded(MySQLBackup b, DumpRun run) {
    LogicalDump.Result r = run.result();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("lastGtid", r.gtid());
    fields.put("lastSource", run.source());
    String message =
        "dumped "
            + r.stored().size()
            + " bytes from "
            + run.source()
            + " at GTID "
            + r.gtid()
            + " to "
            + r.stored().location();
    return new Recorded(r.stored(), message, fields);
  }

  /**
   * What a dump may read: the cluster's healthy replicas in order with the primary they follow, or
   * the primary alone when the cluster has one instance; or why there is nothing to read.
   */
  public record Sources(
      String primary, List<String> replicas, Map<String, Long> verifiedStarts, String problem) {
    /** The members the dump may read, in the order they are tried. */
    public List<String> names() {
      return replicas.isEmpty() ? List.of(primary) : replicas;
    }

    static Sources none(String problem) {
      return new Sources(null, List.of(), Map.of(), problem);
    }
  }

  /** The members a backup of {@code c} may be taken from, as its status shows them. */
  public static Sources sources(MySQLCluster c) {
    var s = c.getStatus();
    if (s == null || s.getInstances() == null || s.getPrimary() == null) {
      return Sources.none("has no primary yet");
    }
    boolean primaryHealthy =
        s.getInstances().stream()
            .anyMatch(
                i -> s.getPrimary().equals(i.getName()) && Boolean.TRUE.equals(i.getHealthy()));
    if (!primaryHealthy) {
      // A replica's dump must be level with the primary, or it may miss acknowledged writes.
      return Sources.none("has no healthy primary for a replica's dump to be level with");
    }
    Map<String, Long> verified =
        s.getContentCheck() == null || s.getContentCheck().getVerifiedStarts() == null
            ? Map.of()
            : s.getContentCheck().getVerifiedStarts();
    List<String> replicas =
        s.getInstances().stream()
            .filter(i -> "replica".equals(i.getRole()) && Boolean.TRUE.equals(i.getHealthy()))
            .filter(i -> !Boolean.TRUE.equals(i.getErrant()))
            .map(Instances::getName)
            .toList();
    List<String> compared = replicas.stream().filter(verified::containsKey).toList();
    if (!compared.isEmpty()) {
      return new Sources(s.getPrimary(), compared, verified, null);
    }
    if (!replicas.isEmpty()) {
      return Sources.none(
          HumanText.format(
              "has no replica whose data was compared with the primary's yet ({} waiting for"
                  + " it); the backup starts once one was",
              replicas));
    }
    int instances = c.getSpec().getReplicas() == null ? 3 : c.getSpec().getReplicas();
    return instances == 1
        ? new Sources(s.getPrimary(), List.of(), verified, null)
        : Sources.none("has no healthy replica to back up from");
  }
}
