package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackgroundJobs;
import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.mysql.backup.JobFailures;
import dev.bosun.mysql.backup.ReplicaCopy;
import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.Rebuilder;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.rebuild.CopyJobRunner;
import dev.bosun.mysql.rebuild.CopyJobs;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * Runs replica rebuilds on a background worker, one per cluster, and keeps their errant
 * transactions on the operator's backup volume under {@code <namespace>/<cluster>/errant/}. The
 * operator stops the member and exports its errant transactions ({@link ReplicaCopy#prepare}); the
 * copy itself, whose client reads what the cluster's tenant wrote, runs as a Job in the cluster's
 * namespace ({@link CopyJobRunner}); the operator then reads where the member landed.
 */
public final class ReplicaRebuilder
    implements BiFunction<MySQLCluster, ClusterModel, Rebuilder>, AutoCloseable {

  /** What one rebuild did: the operator's part, then the copy as the member shows it. */
  public record Result(ReplicaCopy.Prepared prepared, ReplicaCopy.Copied landed) {}

  private final CopyJobRunner jobs;
  private final String operatorImage;
  private final BackupStore store;
  private final Clock clock;
  private final Duration sqlTimeout;
  private final BackgroundJobs<Result> copies =
      new BackgroundJobs<>("mysql-rebuild", 1, 16, JobFailures::describe);
  private final Map<String, String> doing = new ConcurrentHashMap<>();

  /**
   * Rebuilds whose errant transactions go below {@code volumeRoot} (null: nowhere) and whose copy
   * Jobs run {@code operatorImage}.
   */
  public ReplicaRebuilder(
      KubernetesClient client,
      String operatorImage,
      Path volumeRoot,
      Duration sqlTimeout,
      Clock clock) {
    this.jobs = new CopyJobRunner(client);
    this.operatorImage = operatorImage;
    this.store = volumeRoot == null ? null : new FileSystemBackupStore(volumeRoot);
    this.sqlTimeout = sqlTimeout;
    this.clock = clock;
  }

  @Override
  public Rebuilder apply(MySQLCluster cluster, ClusterModel m) {
    return new ClusterRebuilder(cluster, m);
  }

  /** The rebuilds of one cluster: its copies run on the shared worker, keyed by its uid. */
  private final class ClusterRebuilder implements Rebuilder {

    private final MySQLCluster cluster;
    private final ClusterModel m;
    private final String uid;
    private final String prefix;

    ClusterRebuilder(MySQLCluster cluster, ClusterModel m) {
      this.cluster = cluster;
      this.m = m;
      this.uid = cluster.getMetadata().getUid();
      this.prefix = m.namespace() + "/" + m.name() + "/errant/";
    }

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
      ReplicaCopy copy = new ReplicaCopy(SqlDialect.of(m.flavour()), job.credentials(), sqlTimeout);
      doing.put(uid, "queued");
      return copies.submit(
          uid,
          "rebuild of " + job.member(),
          clock.instant(),
          () -> rebuild(cluster, m, copy, job, prefix + job.artifact(), d -> doing.put(uid, d)));
    }

    @Override
    public Progress progress() {
      return copies.state(uid).map(this::progress).orElse(null);
    }

    private Progress progress(BackgroundJobs.State<Result> s) {
      if (s instanceof BackgroundJobs.Done<Result> d) {
        return new Progress(
            false,
            "copied "
                + d.result().landed().bytes() / 1_048_576
                + " MiB; replicating after GTID "
                + d.result().landed().position(),
            null,
            d.result().prepared().exportRan(),
            d.result().prepared().errant().size());
      }
      if (s instanceof BackgroundJobs.Failed<Result> f) {
        return new Progress(false, null, f.message(), false, 0);
      }
      return new Progress(true, doing.getOrDefault(uid, "queued"), null, false, 0);
    }

    @Override
    public void forget() {
      copies.forget(uid);
      doing.remove(uid);
    }
  }

  /**
   * One rebuild on the worker: an earlier attempt's copy Job is gone before the member is touched,
   * the operator prepares the member, the Job copies, and the member says where it landed.
   */
  private Result rebuild(
      MySQLCluster cluster,
      ClusterModel m,
      ReplicaCopy copy,
      Rebuilder.Job job,
      String errantKey,
      Consumer<String> progress)
      throws IOException, InstanceException {
    progress.accept("making sure no copy of an earlier attempt runs");
    jobs.removeEarlier(cluster);
    ReplicaCopy.Prepared prepared =
        copy.prepare(job.target(), job.source(), job.errantAfter(), store, errantKey, progress);
    progress.accept(
        "copying "
            + job.source()
            + " into "
            + job.target()
            + " in the Job "
            + CopyJobs.name(cluster));
    jobs.run(
        cluster,
        new CopyJobs.Spec(
            operatorImage, job.member(), job.target(), job.source(), m.flavour(), sqlTimeout),
        job.credentials());
    return new Result(prepared, copy.landed(job.target()));
  }

  /**
   * Stops a running rebuild's worker with the operator; a copy Job it made runs on, and the next
   * attempt removes it before it touches the member.
   */
  @Override
  public void close() {
    copies.close();
  }
}
