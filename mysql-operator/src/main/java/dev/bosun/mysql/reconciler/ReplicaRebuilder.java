package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.mysql.backup.BackgroundJobs;
import dev.bosun.mysql.backup.ReplicaCopy;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.sql.Flavour;
import dev.bosun.mysql.sql.SqlDialect;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.workload.Rebuilder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * Runs replica rebuilds on a background worker, one per cluster, and keeps their errant
 * transactions on the operator's backup volume under {@code <namespace>/<cluster>/errant/}.
 */
public final class ReplicaRebuilder
    implements BiFunction<MySQLCluster, ClusterModel, Rebuilder>, AutoCloseable {

  private final BackupStore store;
  private final Clock clock;
  private final Duration sqlTimeout;
  private final BackgroundJobs<ReplicaCopy.Result> copies =
      new BackgroundJobs<>("mysql-rebuild", 1, 16);
  private final Map<String, String> doing = new ConcurrentHashMap<>();

  /** Rebuilds whose errant transactions go below {@code volumeRoot} (null: nowhere). */
  public ReplicaRebuilder(Path volumeRoot, Duration sqlTimeout, Clock clock) {
    this.store = volumeRoot == null ? null : new FileSystemBackupStore(volumeRoot);
    this.sqlTimeout = sqlTimeout;
    this.clock = clock;
  }

  @Override
  public Rebuilder apply(MySQLCluster cluster, ClusterModel m) {
    String uid = cluster.getMetadata().getUid();
    String prefix = m.namespace() + "/" + m.name() + "/errant/";
    return new Rebuilder() {
      @Override
      public String unsupported() {
        return m.flavour() == Flavour.MARIADB
            ? null
            : "automatic rebuild copies with mariadb-dump and runs on MariaDB clusters only;"
                + " rebuild a MySQL 8.4 replica by deleting its PersistentVolumeClaim and pod";
      }

      @Override
      public boolean canKeepErrant() {
        return store != null;
      }

      @Override
      public String location(String artifact) {
        return store == null ? artifact : store.location(prefix + artifact);
      }

      @Override
      public boolean start(Job job) {
        ReplicaCopy copy =
            new ReplicaCopy(SqlDialect.of(m.flavour()), job.credentials(), sqlTimeout);
        doing.put(uid, "queued");
        return copies.submit(
            uid,
            "rebuild of " + job.member(),
            clock.instant(),
            () ->
                copy.run(
                    job.target(),
                    job.source(),
                    job.errantAfter(),
                    store,
                    prefix + job.artifact(),
                    d -> doing.put(uid, d)));
      }

      @Override
      public Progress progress() {
        return copies
            .state(uid)
            .map(
                s -> {
                  if (s instanceof BackgroundJobs.Done<ReplicaCopy.Result> d) {
                    return new Progress(
                        false,
                        "copied "
                            + d.result().bytes() / 1_048_576
                            + " MiB; replicating after GTID "
                            + d.result().position(),
                        null,
                        d.result().exportRan(),
                        d.result().errant().size());
                  }
                  if (s instanceof BackgroundJobs.Failed<ReplicaCopy.Result> f) {
                    return new Progress(false, null, f.message(), false, 0);
                  }
                  return new Progress(true, doing.getOrDefault(uid, "queued"), null, false, 0);
                })
            .orElse(null);
      }

      @Override
      public void forget() {
        copies.forget(uid);
        doing.remove(uid);
      }
    };
  }

  /** Stops a running copy with the operator: its client processes end with it. */
  @Override
  public void close() {
    copies.close();
  }
}
