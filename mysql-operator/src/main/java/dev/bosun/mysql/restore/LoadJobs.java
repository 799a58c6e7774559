package dev.bosun.mysql.restore;

import static dev.bosun.common.dependent.UnprivilegedPods.env;
import static dev.bosun.common.dependent.UnprivilegedPods.mount;

import dev.bosun.common.dependent.JobOutcomes;
import dev.bosun.common.dependent.RunOnceJobs;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.runtime.OperatorImage;
import dev.bosun.common.transfer.AccessTokens;
import dev.bosun.common.transfer.FetchArtifact;
import dev.bosun.mysql.MySQLOperator;
import dev.bosun.mysql.backup.DumpClientFailure;
import dev.bosun.mysql.execute.Restorer;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Job that loads a cluster's fromBackup, in the cluster's own namespace and with nothing of the
 * operator's privilege: no ServiceAccount token, a non-root user, no capability. Its init container
 * (the operator image) fetches the checked dump from the operator's restore route into an emptyDir;
 * its container (the cluster's own server image) feeds it to the flavour's client in sandbox mode,
 * logged in with the option file of the restore Secret. A load never runs twice over what it wrote:
 * no retries ({@link RunOnceJobs}).
 */
public final class LoadJobs {

  /** Longest a load may run before Kubernetes stops it. */
  public static final long DEADLINE_SECONDS = 6 * 3600;

  /** The fetch container's name. */
  public static final String FETCH = "fetch-dump";

  /** The load container's name. */
  public static final String LOAD = "load-dump";

  /** The annotation of the Job naming the dump's location, for the status once it finished. */
  public static final String LOCATION_ANNOTATION = "mysql.bosun.dev/restore-location";

  /** The label of the Job's Pods naming their cluster (the member selectors never match it). */
  public static final String RESTORE_OF = "mysql.bosun.dev/restore-of";

  static final String DUMP_MOUNT = "/var/run/bosun/dump";
  static final String SECRET_MOUNT = "/var/run/bosun/restore";
  static final String DUMP_FILE = DUMP_MOUNT + "/dump.sql";

  private LoadJobs() {}

  /** The Job's name: one per cluster incarnation ({@link RunOnceJobs#name}). */
  public static String name(MySQLCluster cluster) {
    return RunOnceJobs.name(cluster, "restore");
  }

  /** What the Job is made of. */
  public record Spec(
      String serverImage,
      String operatorImage,
      URI dumpUrl,
      Address target,
      List<String> clientCommand,
      String location) {}

  /** The Job loading the dump at {@code spec.dumpUrl()} into {@code spec.target()}. */
  public static Job desired(MySQLCluster cluster, Spec spec) {
    VolumeMount secret = mount("restore", SECRET_MOUNT, true);
    VolumeMount tmp = mount("tmp", "/tmp", false);
    Container fetch =
        RunOnceJobs.container(
            FETCH,
            spec.operatorImage(),
            List.of("java", "-cp", OperatorImage.CLASSPATH, FetchArtifact.class.getName()),
            List.of(
                env(FetchArtifact.URL, spec.dumpUrl().toString()),
                env(FetchArtifact.TOKEN_FILE, SECRET_MOUNT + "/" + AccessTokens.TOKEN),
                env(FetchArtifact.CA_FILE, SECRET_MOUNT + "/" + AccessTokens.CA),
                env("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=50")),
            List.of(mount("dump", DUMP_MOUNT, false), secret, tmp),
            "256Mi",
            "256Mi");
    fetch.setArgs(List.of("fetch", DUMP_FILE));
    Container load =
        RunOnceJobs.container(
            LOAD,
            spec.serverImage(),
            loadCommand(spec.clientCommand()),
            List.of(),
            List.of(mount("dump", DUMP_MOUNT, true), secret, tmp),
            "128Mi",
            "512Mi");
    return RunOnceJobs.job(
        cluster,
        new RunOnceJobs.Spec(
            name(cluster),
            Labels.of(cluster, MySQLOperator.APP, LoadSecrets.COMPONENT, MySQLOperator.NAME),
            Map.of(LOCATION_ANNOTATION, spec.location()),
            Map.of(RESTORE_OF, cluster.getMetadata().getName()),
            MySQLOperator.JOB_USER,
            DEADLINE_SECONDS,
            List.of(fetch),
            List.of(load),
            List.of(
                RunOnceJobs.emptyDir("dump"),
                RunOnceJobs.emptyDir("tmp"),
                // The option file holds a password.
                RunOnceJobs.secret("restore", LoadSecrets.name(cluster.getMetadata().getName())))));
  }

  /**
   * The load container's command: the client reads the dump on its standard input (sandbox mode
   * refuses {@code source}), through a shell that only redirects: the dump file and the client's
   * arguments are positional parameters, never part of the script.
   */
  static List<String> loadCommand(List<String> clientCommand) {
    List<String> cmd = new ArrayList<>();
    cmd.add("sh");
    cmd.add("-c");
    cmd.add("dump=\"$1\"; shift; exec \"$@\" < \"$dump\"");
    cmd.add("load");
    cmd.add(DUMP_FILE);
    cmd.add(clientCommand.get(0));
    cmd.add("--defaults-extra-file=" + SECRET_MOUNT + "/" + LoadSecrets.CLIENT_OPTIONS);
    cmd.addAll(clientCommand.subList(1, clientCommand.size()));
    return cmd;
  }

  /** Whether the Job finished, one way or the other. */
  public static boolean finished(Job job) {
    return JobOutcomes.finished(job);
  }

  /**
   * Where the load stands by its Job: running, done (the dump's location), or failed with what the
   * failed container of {@code pod} (the Job's Pod, if known) said.
   */
  public static Restorer.Progress progress(Job job, Optional<Pod> pod) {
    if (JobOutcomes.succeeded(job)) {
      String location =
          job.getMetadata().getAnnotations() == null
              ? null
              : job.getMetadata().getAnnotations().get(LOCATION_ANNOTATION);
      return new Restorer.Progress(false, location, null);
    }
    if (JobOutcomes.failed(job)) {
      return new Restorer.Progress(false, null, failure(job, pod));
    }
    return new Restorer.Progress(true, null, null);
  }

  /** A failed load for a person: which step failed and what its program said, bounded. */
  static String failure(Job job, Optional<Pod> pod) {
    return pod.flatMap(JobOutcomes::failedContainer)
        .map(s -> said(job, s))
        .orElseGet(() -> JobOutcomes.failedSentence(job, "restore", DumpClientFailure.MAX_LINE));
  }

  private static String said(Job job, ContainerStatus s) {
    var t = s.getState().getTerminated();
    if (FETCH.equals(s.getName())) {
      return "fetching the checked dump from the operator failed: "
          + DumpClientFailure.describe("fetch", t.getExitCode(), t.getMessage());
    }
    // The client is the load command's sixth word (sh -c script load dump client ...).
    List<String> cmd = job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand();
    String client = cmd.size() > 5 ? cmd.get(5) : LOAD;
    return DumpClientFailure.describe(client, t.getExitCode(), t.getMessage());
  }
}
