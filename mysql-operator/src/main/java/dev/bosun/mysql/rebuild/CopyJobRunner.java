package dev.bosun.mysql.rebuild;

import dev.bosun.common.dependent.JobOutcomes;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.backup.DumpClientFailure;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import io.fabric8.kubernetes.client.dsl.ScalableResource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Runs the copy of a rebuild as a Job in the cluster's namespace ({@link CopyJobs}) and waits for
 * its end through a watch, on the rebuild's background worker. A copy Job left by an earlier
 * attempt (an operator that stopped mid-copy) is removed, its Pod first, before anything else of a
 * new attempt touches the member: two copies never write into one member.
 */
public final class CopyJobRunner {

  /** Longest the removal of an earlier attempt's Job (its Pod stopping first) is waited for. */
  static final Duration REMOVAL = Duration.ofMinutes(5);

  private final KubernetesClient client;

  public CopyJobRunner(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Removes the copy Job of an earlier attempt and returns once it is gone: with foreground
   * deletion, only after its Pod is gone, so its processes have stopped.
   */
  public void removeEarlier(MySQLCluster cluster) throws InstanceException {
    ScalableResource<Job> job = job(cluster);
    if (job.get() == null) {
      return;
    }
    job.withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
    try {
      job.waitUntilCondition(Objects::isNull, REMOVAL.toSeconds(), TimeUnit.SECONDS);
    } catch (KubernetesClientTimeoutException e) {
      throw new InstanceException(
          "the copy Job "
              + CopyJobs.name(cluster)
              + " of an earlier attempt is still being removed after "
              + REMOVAL.toMinutes()
              + " minutes; the rebuild starts again once it is gone");
    }
  }

  /**
   * Runs the copy {@code spec} logged in as {@code account}: returns once its Job completed, or
   * says in a sentence why the copy did not finish. The Secret with the account's password is
   * deleted whatever the end; a completed Job is deleted, a failed one kept for its log.
   */
  public void run(MySQLCluster cluster, CopyJobs.Spec spec, Credentials account)
      throws InstanceException {
    String ns = cluster.getMetadata().getNamespace();
    var secret = client.secrets().inNamespace(ns).withName(CopyJobs.secretName(cluster));
    // Delete and create: no right to patch Secrets needed, and an old attempt's Secret goes.
    secret.delete();
    client.secrets().inNamespace(ns).resource(CopyJobs.secret(cluster, account)).create();
    try {
      String name = CopyJobs.name(cluster);
      Job made =
          client
              .batch()
              .v1()
              .jobs()
              .inNamespace(ns)
              .resource(CopyJobs.desired(cluster, spec))
              .create();
      String uid = made.getMetadata().getUid();
      Job end =
          job(cluster)
              .waitUntilCondition(
                  j ->
                      j == null || !uid.equals(j.getMetadata().getUid()) || JobOutcomes.finished(j),
                  CopyJobs.DEADLINE_SECONDS + REMOVAL.toSeconds(),
                  TimeUnit.SECONDS);
      if (end == null || !uid.equals(end.getMetadata().getUid())) {
        throw new InstanceException("the copy Job " + name + " was deleted before it finished");
      }
      if (JobOutcomes.failed(end)) {
        throw new InstanceException(failure(end));
      }
      job(cluster).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
    } finally {
      secret.delete();
    }
  }

  /** What the failed copy said (its last line), else the Job's own reason. */
  private String failure(Job job) {
    return JobOutcomes.podOf(client, job)
        .flatMap(JobOutcomes::failedContainer)
        .map(s -> DumpClientFailure.lastLine(s.getState().getTerminated().getMessage()))
        .filter(line -> !line.isEmpty())
        .map(
            line ->
                "the copy Job "
                    + job.getMetadata().getName()
                    + " failed: "
                    + HumanMessages.bounded(line, DumpClientFailure.MAX_LINE))
        .orElseGet(() -> JobOutcomes.failedSentence(job, "copy", DumpClientFailure.MAX_LINE));
  }

  private ScalableResource<Job> job(MySQLCluster cluster) {
    return client
        .batch()
        .v1()
        .jobs()
        .inNamespace(cluster.getMetadata().getNamespace())
        .withName(CopyJobs.name(cluster));
  }
}
