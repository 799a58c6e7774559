package dev.bosun.mysql.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MySQLOperatorFixture;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A restore from a backup loads through a Job in the cluster's own namespace, with no
 * ServiceAccount token: the operator fetches and checks the dump, the Job's init container fetches
 * it from the operator's route, its container loads it with the local client. A hostile dump runs
 * nothing and is refused by line; a dump the server refuses fails the Job and says why; an operator
 * restarted while its Job waits finds it and the restore completes.
 */
@ExtendWith(ControlPlaneExtension.class)
class RestoreJobIT {

  @RegisterExtension static final MySQLOperatorFixture FX = new MySQLOperatorFixture("mysql-rj");

  @TempDir Path dir;

  /** A backup "dumps" on the operator's volume whose one dump is {@code dump}; its location. */
  private static String storedDump(String dump) throws Exception {
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLBackup",
        FX.namespace(),
        "dumps",
        "clusterName: elsewhere\nstore: {volume: {prefix: t}}");
    Path file = FX.mysql().backupRoot.resolve(FX.namespace() + "/t/dumps/20260101T000000Z.sql");
    Files.createDirectories(file.getParent());
    Files.writeString(file, dump);
    return "file:" + file;
  }

  private static void restoredCluster() {
    FX.serversFor("db", 1);
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLCluster",
        FX.namespace(),
        "db",
        "flavour: MariaDB\nversion: '10.11'\nreplicas: 1\nbootstrap: {fromBackup: {backupName:"
            + " dumps}}");
  }

  private static MySQLCluster cluster() {
    return FX.client()
        .resources(MySQLCluster.class)
        .inNamespace(FX.namespace())
        .withName("db")
        .get();
  }

  private static String condition(String type) {
    MySQLCluster c = cluster();
    return c == null || c.getStatus() == null
        ? null
        : Conditions.find(c.getStatus().getConditions(), type)
            .map(x -> x.getStatus() + "/" + x.getReason() + ": " + x.getMessage())
            .orElse(null);
  }

  private static List<Job> jobs() {
    return FX.client().batch().v1().jobs().inNamespace(FX.namespace()).list().getItems();
  }

  private static final String GOOD =
      "CREATE DATABASE shop;\nCREATE TABLE shop.t (id INT);\nINSERT INTO shop.t VALUES (1),(2);\n";

  @Test
  void theLoadRunsAsAJobOfTheClustersNamespaceWithNoServiceAccountToken() throws Exception {
    String location = storedDump(GOOD);
    restoredCluster();

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> condition("Ready") != null && condition("Ready").startsWith("True/"));
    assertThat(cluster().getStatus().getRestoredFrom()).isEqualTo(location);
    assertThat(AppClient.adminQuery(FX.server("db-0").address(), "SELECT COUNT(*) FROM shop.t"))
        .isEqualTo("2");
    // The Pod the Job controller made ran in the cluster's namespace, without a token.
    List<Pod> pods = MySQLOperatorFixture.jobPods().ran(FX.namespace());
    assertThat(pods).hasSize(1);
    Pod pod = pods.get(0);
    assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSpec().getVolumes())
        .noneMatch(v -> v.getProjected() != null || v.getName().startsWith("default-token"));
    assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts())
        .noneMatch(m -> m.getMountPath().startsWith("/var/run/secrets/kubernetes.io"));
    assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getMetadata().getLabels()).containsEntry(LoadJobs.RESTORE_OF, "db");
    // Recorded, then forgotten: the Job and its token go.
    await().atMost(Duration.ofSeconds(30)).until(() -> jobs().isEmpty());
    assertThat(
            FX.client()
                .secrets()
                .inNamespace(FX.namespace())
                .withName(LoadSecrets.name("db"))
                .get())
        .isNull();
  }

  @Test
  void aDumpWithAShellCommandRunsNothingAndIsRefusedByItsLine() throws Exception {
    Path owned = dir.resolve("owned");
    storedDump(
        "CREATE DATABASE tenant;\nCREATE TABLE tenant.t (id INT);\n\\! touch "
            + owned
            + "\nINSERT INTO tenant.t VALUES (1);\n");
    restoredCluster();

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> condition("Degraded") != null && condition("Degraded").contains("Restore"));
    assertThat(condition("Degraded"))
        .startsWith("True/RestoreFailed")
        .contains("line 3 of the dump holds a client command")
        .doesNotContain(owned.toString());
    assertThat(owned).doesNotExist();
    assertThat(jobs()).as("refused before any Job").isEmpty();
    assertThat(AppClient.adminQuery(FX.server("db-0").address(), "SHOW DATABASES LIKE 'tenant'"))
        .isNull();
  }

  @Test
  void aDumpWhoseDataTriesToEscapeItsStringIsRefusedByItsLine() throws Exception {
    Path owned = dir.resolve("owned");
    storedDump(
        "CREATE DATABASE tenant;\nCREATE TABLE tenant.t (body TEXT);\n"
            + "INSERT INTO tenant.t VALUES ('first\nsecond\\\\'); \\! touch "
            + owned
            + "\n");
    restoredCluster();

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> condition("Degraded") != null && condition("Degraded").contains("Restore"));
    assertThat(condition("Degraded"))
        .startsWith("True/RestoreFailed")
        .contains("line 4 of the dump holds a client command");
    assertThat(owned).doesNotExist();
    assertThat(jobs()).isEmpty();
  }

  @Test
  void aDumpTheServerRefusesFailsTheJobAndSaysWhy() throws Exception {
    storedDump("CREATE DATABASE shop;\nTHIS IS NOT SQL;\n");
    restoredCluster();

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> condition("Degraded") != null && condition("Degraded").contains("Restore"));
    assertThat(condition("Degraded"))
        .startsWith("True/RestoreFailed")
        .contains("the server refused the dump's statements with ERROR 1064 (42000) at line 2")
        .doesNotContain("THIS IS NOT");
    // Kept for a person to look at; never run again.
    assertThat(jobs()).hasSize(1);
    assertThat(jobs().get(0).getSpec().getBackoffLimit()).isZero();
  }

  @Test
  void aJobWhoseTokenWasReplacedFetchesNothingAndSaysSo() throws Exception {
    storedDump(GOOD);
    MySQLOperatorFixture.jobPods().hold();
    try {
      restoredCluster();
      await().atMost(Duration.ofSeconds(60)).until(() -> jobs().size() == 1);
      // Someone in the namespace rewrites the token: the route grants nothing to the old one.
      FX.client()
          .secrets()
          .inNamespace(FX.namespace())
          .withName(LoadSecrets.name("db"))
          .edit(
              s -> {
                s.getData()
                    .put("token", java.util.Base64.getEncoder().encodeToString(new byte[] {1}));
                return s;
              });
    } finally {
      MySQLOperatorFixture.jobPods().release();
    }

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> condition("Degraded") != null && condition("Degraded").contains("Restore"));
    assertThat(condition("Degraded"))
        .startsWith("True/RestoreFailed")
        .contains("fetching the checked dump from the operator failed")
        .contains("the token was not accepted");
    assertThat(AppClient.adminQuery(FX.server("db-0").address(), "SHOW DATABASES LIKE 'shop'"))
        .isNull();
  }

  /**
   * The operator dies at a boundary of the restore (its API requests cut there, as a crash leaves
   * them): before the Job is made ("loading" and the Secret are recorded), right after it is made,
   * or after the finished load was recorded and before the Job is deleted. A fresh operator ends in
   * a good restore every time, never RestoreInterrupted.
   */
  @ParameterizedTest
  @ValueSource(strings = {"before POST jobs", "after POST jobs", "before DELETE jobs"})
  void anOperatorThatDiesAtABoundaryOfTheRestoreEndsInAGoodRestore(String boundary)
      throws Exception {
    String location = storedDump(GOOD);
    String method = boundary.split(" ")[1];
    java.util.function.Predicate<String> at =
        r -> r.startsWith(method + " /apis/batch/v1/namespaces/" + FX.namespace() + "/jobs");
    if (boundary.startsWith("before")) {
      FX.operator().cut.before(at);
    } else {
      FX.operator().cut.after(at);
    }
    try {
      restoredCluster();
      await().atMost(Duration.ofSeconds(60)).until(() -> FX.operator().cut.cutAt() != null);
      FX.operator().stop();
    } finally {
      FX.operator().cut.heal();
    }
    FX.operator().start();

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> condition("Ready") != null && condition("Ready").startsWith("True/"));
    assertThat(cluster().getStatus().getRestoredFrom()).isEqualTo(location);
    assertThat(AppClient.adminQuery(FX.server("db-0").address(), "SELECT COUNT(*) FROM shop.t"))
        .isEqualTo("2");
    assertThat(FX.client().v1().events().inNamespace(FX.namespace()).list().getItems())
        .noneMatch(e -> "RestoreInterrupted".equals(e.getReason()));
    // Even a Job whose deletion the crash cut off goes, with its token.
    await().atMost(Duration.ofSeconds(30)).until(() -> jobs().isEmpty());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                FX.client()
                        .secrets()
                        .inNamespace(FX.namespace())
                        .withName(LoadSecrets.name("db"))
                        .get()
                    == null);
  }

  @Test
  void anOperatorRestartedWhileItsJobWaitsFindsItAndTheRestoreCompletes() throws Exception {
    String location = storedDump(GOOD);
    MySQLOperatorFixture.jobPods().hold();
    try {
      restoredCluster();
      await().atMost(Duration.ofSeconds(60)).until(() -> jobs().size() == 1);
      // Stopped with the Job made and not yet run: the checked dump in its memory is gone too.
      FX.operator().stop();
      FX.operator().start();
    } finally {
      MySQLOperatorFixture.jobPods().release();
    }

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> condition("Ready") != null && condition("Ready").startsWith("True/"));
    assertThat(cluster().getStatus().getRestoredFrom()).isEqualTo(location);
    assertThat(AppClient.adminQuery(FX.server("db-0").address(), "SELECT COUNT(*) FROM shop.t"))
        .isEqualTo("2");
    assertThat(FX.client().v1().events().inNamespace(FX.namespace()).list().getItems())
        .noneMatch(e -> "RestoreInterrupted".equals(e.getReason()));
  }
}
