package dev.bosun.mysql.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.transfer.FetchArtifact;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.Restorer;
import dev.bosun.mysql.objects.ClusterObjectsTest;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.RunOnceJobAssert;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterSpec;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import java.net.URI;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The restore Job's shape, and where a load stands by its Job. */
class LoadJobsTest {

  private static final MySQLCluster CLUSTER = ClusterObjectsTest.cluster(new MySQLClusterSpec());

  static {
    CLUSTER.getMetadata().setUid("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
  }

  private static Job job() {
    return LoadJobs.desired(
        CLUSTER,
        new LoadJobs.Spec(
            "mariadb:10.11",
            "bosun/mysql-operator:0.1.0",
            URI.create("https://op-restore.ops.svc:8444/mysql-restore/v1/shop/db"),
            new Address("db-0.db.shop.svc", 3306),
            new MariaDbDialect().clientCommand("db-0.db.shop.svc", 3306),
            "s3://backups/shop/db/1.sql"));
  }

  @Test
  void theJobRunsInTheClustersNamespaceWithNoPrivilegeAndNoToken() {
    Job job = job();
    RunOnceJobAssert.assertRunsOnceUnprivileged(job, "shop", LoadJobs.RESTORE_OF);
    assertThat(job.getMetadata().getName()).isEqualTo("db-restore-0f1e2d3c");
    assertThat(job.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo("db"));
    var pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getInitContainers()).hasSize(1);
    assertThat(pod.getContainers()).hasSize(1);
  }

  @Test
  void theFetchTakesTheTokenAndCaFromFilesAndTheLoadRunsTheSandboxedClientOnStdin() {
    var pod = job().getSpec().getTemplate().getSpec();
    var fetch = pod.getInitContainers().get(0);
    assertThat(fetch.getImage()).isEqualTo("bosun/mysql-operator:0.1.0");
    assertThat(fetch.getCommand()).contains(FetchArtifact.class.getName());
    assertThat(fetch.getEnv())
        .anySatisfy(e -> assertThat(e.getName()).isEqualTo(FetchArtifact.TOKEN_FILE))
        .allSatisfy(e -> assertThat(e.getValueFrom()).isNull());
    var load = pod.getContainers().get(0);
    assertThat(load.getImage()).isEqualTo("mariadb:10.11");
    assertThat(load.getCommand())
        .startsWith("sh", "-c", "dump=\"$1\"; shift; exec \"$@\" < \"$dump\"", "load")
        .contains(
            "/var/run/bosun/dump/dump.sql",
            "mariadb",
            "--defaults-extra-file=/var/run/bosun/restore/client.cnf",
            "--sandbox",
            "--binary-mode",
            "--host=db-0.db.shop.svc");
    // The option file comes first: the client reads it only there.
    assertThat(load.getCommand().get(6)).startsWith("--defaults-extra-file=");
    assertThat(job().getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(v -> v.getSecret() != null)
        .singleElement()
        .satisfies(v -> assertThat(v.getSecret().getDefaultMode()).isEqualTo(0440));
  }

  @Test
  void aLongClusterNameStillGivesAJobNameOfAtMost63Characters() {
    MySQLCluster c = ClusterObjectsTest.cluster(new MySQLClusterSpec());
    c.setMetadata(
        new ObjectMetaBuilder()
            .withName("a".repeat(60))
            .withNamespace("shop")
            .withUid("abcdef01-2345")
            .build());
    assertThat(LoadJobs.name(c)).hasSize(63).endsWith("-restore-abcdef01");
  }

  @Test
  void aRunningCompleteOrFailedJobSaysWhereTheLoadStands() {
    assertThat(LoadJobs.progress(job(), Optional.empty()))
        .isEqualTo(new Restorer.Progress(true, null, null));
    Job complete =
        new JobBuilder(job())
            .withNewStatus()
            .addToConditions(condition("Complete", null))
            .endStatus()
            .build();
    assertThat(LoadJobs.progress(complete, Optional.empty()))
        .isEqualTo(new Restorer.Progress(false, "s3://backups/shop/db/1.sql", null));
    Job failed =
        new JobBuilder(job())
            .withNewStatus()
            .addToConditions(condition("Failed", "Job has reached the specified backoff limit"))
            .endStatus()
            .build();
    assertThat(LoadJobs.progress(failed, Optional.empty()).failure())
        .isEqualTo(
            "the restore Job db-restore-0f1e2d3c failed: Job has reached the specified backoff"
                + " limit");
  }

  @Test
  void aFailedLoadSaysWhatTheClientSaidWithoutTheDumpsText() {
    Job failed =
        new JobBuilder(job())
            .withNewStatus()
            .addToConditions(condition("Failed", "x"))
            .endStatus()
            .build();
    Pod pod =
        new PodBuilder()
            .withNewStatus()
            .addToInitContainerStatuses(terminated(LoadJobs.FETCH, 0, null))
            .addToContainerStatuses(
                terminated(
                    LoadJobs.LOAD,
                    1,
                    "ERROR 1064 (42000) at line 2: You have an error in your SQL syntax near"
                        + " 'THIS IS NOT SQL'"))
            .endStatus()
            .build();
    assertThat(LoadJobs.progress(failed, Optional.of(pod)).failure())
        .isEqualTo(
            "mariadb exited with 1: the server refused the dump's statements with ERROR 1064"
                + " (42000) at line 2");
    Pod fetchFailed =
        new PodBuilder()
            .withNewStatus()
            .addToInitContainerStatuses(
                terminated(LoadJobs.FETCH, 1, "Picked up JAVA_TOOL_OPTIONS\nHTTP 403: refused\n"))
            .endStatus()
            .build();
    assertThat(LoadJobs.progress(failed, Optional.of(fetchFailed)).failure())
        .isEqualTo(
            "fetching the checked dump from the operator failed: fetch exited with 1: HTTP 403:"
                + " refused");
  }

  private static io.fabric8.kubernetes.api.model.batch.v1.JobCondition condition(
      String type, String message) {
    return new JobConditionBuilder().withType(type).withStatus("True").withMessage(message).build();
  }

  private static io.fabric8.kubernetes.api.model.ContainerStatus terminated(
      String name, int code, String message) {
    return new ContainerStatusBuilder()
        .withName(name)
        .withNewState()
        .withNewTerminated()
        .withExitCode(code)
        .withMessage(message)
        .endTerminated()
        .endState()
        .build();
  }
}
