package dev.bosun.mysql.reconciler;

import dev.bosun.common.backup.BackgroundJobs;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.dependent.ChildCache;
import dev.bosun.common.dependent.JobOutcomes;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.transfer.AccessTokens;
import dev.bosun.mysql.backup.JobFailures;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.Restorer;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.restore.CheckedDumps;
import dev.bosun.mysql.restore.DumpRoute;
import dev.bosun.mysql.restore.LoadJobs;
import dev.bosun.mysql.restore.LoadSecrets;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a new cluster's fromBackup (the named dump of the MySQLBackup, else its newest) through a
 * Job in the cluster's own namespace ({@link LoadJobs}), never in the operator's container. A
 * background worker fetches the dump from the tenant's store and checks it (a dump holding a client
 * command is refused here, naming the line, and no Job is made), writes the restore Secret with a
 * new token, and creates the Job; from then on the Job, read from the informer cache, says where
 * the load stands, so an operator that restarts finds it and carries on.
 */
public final class BackupRestorer implements Restorers {

  /** Where restore Jobs fetch checked dumps: the operator's route URL and CA. */
  public record Route(URI operatorUrl, Supplier<String> caBundle) {}

  private static final Logger LOG = LoggerFactory.getLogger(BackupRestorer.class);

  private final KubernetesClient client;
  private final MySQLBackupStores stores;
  private final CheckedDumps dumps;
  private final Optional<Route> route;
  private final String operatorImage;
  private final Clock clock;
  private final BackgroundJobs<String> starts =
      new BackgroundJobs<>("mysql-restore", 1, 16, JobFailures::describe);

  /** Job UID -> why it failed: its Pod is read once. */
  private final Map<String, String> failures = new ConcurrentHashMap<>();

  /**
   * A restorer whose Jobs run {@code operatorImage} to fetch dumps from {@code route} (empty: this
   * operator serves no route, and restores are refused, saying why).
   */
  public BackupRestorer(
      KubernetesClient client,
      MySQLBackupStores stores,
      CheckedDumps dumps,
      Optional<Route> route,
      String operatorImage) {
    this(client, stores, dumps, route, operatorImage, Clock.systemUTC());
  }

  BackupRestorer(
      KubernetesClient client,
      MySQLBackupStores stores,
      CheckedDumps dumps,
      Optional<Route> route,
      String operatorImage,
      Clock clock) {
    this.client = client;
    this.stores = stores;
    this.dumps = dumps;
    this.route = route;
    this.operatorImage = operatorImage;
    this.clock = clock;
  }

  @Override
  public Restorer of(MySQLCluster cluster, ClusterModel m, ChildCache<MySQLCluster> cache) {
    String key = cluster.getMetadata().getUid();
    String jobName = LoadJobs.name(cluster);
    return new Restorer() {
      @Override
      public boolean start(Address primary) {
        return starts.submit(
            key,
            "start of the load of fromBackup " + m.fromBackup(),
            clock.instant(),
            () -> startJob(cluster, m, primary, cache));
      }

      @Override
      public Progress progress() {
        Optional<Job> job = cache.named(Job.class, jobName);
        if (job.isPresent()) {
          return jobProgress(cluster, job.get());
        }
        var state = starts.state(key).orElse(null);
        if (state instanceof BackgroundJobs.Failed<String> f) {
          return new Progress(false, null, f.message());
        }
        if (state instanceof BackgroundJobs.Done<String>) {
          // Made, and handed to the cache at once: gone since, so someone deleted it. The
          // primary says how far it came (the caller asks it when no load is known).
          starts.forget(key);
          return null;
        }
        return state == null ? null : new Progress(true, null, null);
      }

      @Override
      public void forget() {
        starts.forget(key);
        String ns = cluster.getMetadata().getNamespace();
        client
            .batch()
            .v1()
            .jobs()
            .inNamespace(ns)
            .withName(jobName)
            .withPropagationPolicy(DeletionPropagation.BACKGROUND)
            .delete();
        client
            .secrets()
            .inNamespace(ns)
            .withName(LoadSecrets.name(cluster.getMetadata().getName()))
            .delete();
        dumps.forget(DumpRoute.restoreId(cluster));
      }
    };
  }

  private Restorer.Progress jobProgress(MySQLCluster cluster, Job job) {
    if (!LoadJobs.finished(job)) {
      return new Restorer.Progress(true, null, null);
    }
    // The Job fetched its dump: the operator's copy is no longer needed.
    dumps.forget(DumpRoute.restoreId(cluster));
    Restorer.Progress done = LoadJobs.progress(job, Optional.empty());
    if (done.failure() == null) {
      return done;
    }
    String why =
        failures.computeIfAbsent(
            job.getMetadata().getUid(),
            uid -> LoadJobs.progress(job, JobOutcomes.podOf(client, job)).failure());
    return new Restorer.Progress(false, null, why);
  }

  private String startJob(
      MySQLCluster cluster, ClusterModel m, Address primary, ChildCache<MySQLCluster> cache)
      throws Exception {
    Route r =
        route.orElseThrow(
            () ->
                new InstanceException(
                    "a restore runs as a Job that fetches the checked dump from the operator's"
                        + " restore route, and this operator serves none (its chart sets"
                        + " BOSUN_OPERATOR_URL)"));
    BackupTarget target = stores.open(backupOf(m));
    String dump = dumpKey(m, target);
    ClusterSecrets.Found secrets = ClusterSecrets.ensure(client, cluster);
    if (secrets.credentials() == null) {
      throw new InstanceException(secrets.problem());
    }
    SqlDialect dialect = SqlDialect.of(m.flavour());
    // Checked here first: a refused dump is reported at once, naming the line, and no Job runs.
    dumps.prepare(DumpRoute.restoreId(cluster), target.store(), dump, dialect);
    String location = target.store().location(dump);
    try {
      // A new token for each attempt: the Secret of an attempt before (made, then the operator
      // stopped before its Job) goes first. Delete and create: no right to patch Secrets needed.
      Secret grant =
          LoadSecrets.desired(
              cluster, dump, AccessTokens.newToken(), r.caBundle().get(), secrets.credentials());
      client.secrets().inNamespace(m.namespace()).withName(grant.getMetadata().getName()).delete();
      client.secrets().inNamespace(m.namespace()).resource(grant).create();
      createJob(
          cache,
          LoadJobs.desired(
              cluster,
              new LoadJobs.Spec(
                  m.image(),
                  operatorImage,
                  DumpRoute.url(r.operatorUrl(), cluster),
                  primary,
                  dialect.clientCommand(primary.host(), primary.port()),
                  location)));
    } catch (KubernetesClientException e) {
      // Nothing was loaded: no Job runs. The worker's end without a Job makes the next round ask
      // the primary, which is empty, so the load starts again.
      LOG.warn(
          "the restore Job of {}/{} could not be made; it is made in a later round: {}",
          m.namespace(),
          m.name(),
          HumanMessages.describe(e));
      return null;
    }
    return location;
  }

  /** The MySQLBackup bootstrap.fromBackup names, in the cluster's namespace. */
  private MySQLBackup backupOf(ClusterModel m) throws InstanceException {
    MySQLBackup b =
        client
            .resources(MySQLBackup.class)
            .inNamespace(m.namespace())
            .withName(m.fromBackup())
            .get();
    if (b == null) {
      throw new InstanceException("MySQLBackup " + m.fromBackup() + " does not exist");
    }
    return b;
  }

  /** The dump to load: the key asked for (only this backup's own) or the newest. */
  private static String dumpKey(ClusterModel m, BackupTarget target)
      throws InstanceException, IOException {
    try {
      return target
          .restoreKey(m.fromBackupKey())
          .orElseThrow(
              () -> new InstanceException("MySQLBackup " + m.fromBackup() + " holds no dump yet"));
    } catch (IllegalArgumentException e) {
      // The store is the whole backup volume or bucket: only this backup's own keys are loaded.
      throw new InstanceException("bootstrap.fromBackup.key " + e.getMessage());
    }
  }

  /** Creates the load Job; one this restore made before stands as it is (same name for life). */
  private void createJob(ChildCache<MySQLCluster> cache, Job job) {
    try {
      cache.written(
          client
              .batch()
              .v1()
              .jobs()
              .inNamespace(job.getMetadata().getNamespace())
              .resource(job)
              .create(),
          null);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }
}
