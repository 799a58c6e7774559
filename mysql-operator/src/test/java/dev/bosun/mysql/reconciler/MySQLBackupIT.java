package dev.bosun.mysql.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.S3TestServer;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MariaDbServers;
import dev.bosun.mysql.testing.MySQLOperatorFixture;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups from a replica to the operator's volume and to an S3-compatible store, then a new cluster
 * restored from the S3 dump, rows checked on its primary and on its replica.
 */
@ExtendWith(ControlPlaneExtension.class)
class MySQLBackupIT {

  @RegisterExtension static final MySQLOperatorFixture FX = new MySQLOperatorFixture("mysql-bk");

  private static String ready(Object r) {
    List<io.fabric8.kubernetes.api.model.Condition> conds =
        r instanceof MySQLCluster c
            ? (c.getStatus() == null ? null : c.getStatus().getConditions())
            : r instanceof MySQLBackup b
                ? (b.getStatus() == null ? null : b.getStatus().getConditions())
                : null;
    return Conditions.find(conds, "Ready")
        .map(x -> x.getStatus() + "/" + x.getReason())
        .orElse(null);
  }

  private static MySQLCluster cluster(String name) {
    return FX.client()
        .resources(MySQLCluster.class)
        .inNamespace(FX.namespace())
        .withName(name)
        .get();
  }

  private static MySQLBackup backup(String name) {
    return FX.client()
        .resources(MySQLBackup.class)
        .inNamespace(FX.namespace())
        .withName(name)
        .get();
  }

  @Test
  void backupToVolumeAndS3ThenRestoreIntoANewCluster(@TempDir Path s3dir) throws Exception {
    FX.serversFor("src", 2);
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLCluster",
        FX.namespace(),
        "src",
        "flavour: MariaDB\nversion: '10.11'\nreplicas: 2");
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> "True/Replicating".equals(ready(cluster("src"))));
    var primary = FX.server("src-0").address();
    AppClient.createSchema(primary);
    for (long id = 1; id <= 30; id++) {
      AppClient.insert(primary, id);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> AppClient.ids(FX.server("src-1").address()).size() == 30);

    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLBackup",
        FX.namespace(),
        "local",
        "clusterName: src\nstore: {volume: {prefix: src/local}}");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> "True/BackupSucceeded".equals(ready(backup("local"))));
    MySQLBackup local = backup("local");
    assertThat(local.getStatus().getLastSource()).isEqualTo("src-1");
    assertThat(local.getStatus().getLastGtid()).matches("0-100-\\d+");
    assertThat(local.getStatus().getLastBackup().size()).isPositive();
    // The same key layout as every backup kind: <namespace>/<prefix>/<backup name>/<time>.
    assertThat(local.getStatus().getLastBackup().key())
        .startsWith(FX.namespace() + "/src/local/local/")
        .endsWith(".sql");
    assertThat(local.getStatus().getBackups()).hasSize(1);
    assertThat(local.getStatus().getBackupCount()).isEqualTo(1);
    // The same status as every backup kind: nothing runs once the dump is recorded.
    assertThat(local.getStatus().getInProgress()).isNull();
    assertThat(Conditions.find(local.getStatus().getConditions(), "Progressing"))
        .get()
        .extracting(c -> c.getStatus() + "/" + c.getReason() + ": " + c.getMessage())
        .isEqualTo("False/Idle: one-shot backup done");
    Path dir = FX.mysql().backupRoot.resolve(FX.namespace() + "/src/local/local");
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.endsWith(".sql"));
    }
    String dump = Files.readString(Files.list(dir).findFirst().orElseThrow());
    assertThat(dump)
        .contains("INSERT INTO `items`")
        .doesNotContain(MariaDbServers.CREDENTIALS.operatorPassword());

    try (S3TestServer s3 = S3TestServer.start(s3dir.resolve("objects"), "backups")) {
      FX.secret(
          "s3-creds",
          Map.of(
              "accessKeyId",
              s3.credentials().accessKeyId(),
              "secretAccessKey",
              s3.credentials().secretAccessKey()));
      Crds.createRaw(
          FX.client(),
          "mysql.bosun.dev/v1alpha1",
          "MySQLBackup",
          FX.namespace(),
          "offsite",
          "clusterName: src\nstore: {s3: {endpoint: '"
              + s3.endpoint()
              + "', bucket: backups, prefix: src, credentialsSecret: {name: s3-creds}}}");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> "True/BackupSucceeded".equals(ready(backup("offsite"))));
      String location = backup("offsite").getStatus().getLastBackup().location();
      assertThat(location).startsWith("s3://backups/" + FX.namespace() + "/src/offsite/");

      // A new cluster from the S3 dump: loaded into its first instance before the replica joins.
      FX.serversFor("dst", 2);
      createFromOffsiteAndAwaitReady("dst");
      assertThat(cluster("dst").getStatus().getRestoredFrom()).isEqualTo(location);
      List<Long> expected = LongStream.rangeClosed(1, 30).boxed().toList();
      assertThat(AppClient.ids(FX.server("dst-0").address())).isEqualTo(expected);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> AppClient.ids(FX.server("dst-1").address()).equals(expected));

      // Deleted and applied again over the same members (kept volumes, a GitOps replace): the
      // data written since the restore stays; fromBackup is not loaded over it.
      for (long id = 31; id <= 35; id++) {
        // As the operator's user: the dump holds the data, not the source cluster's accounts.
        AppClient.adminQuery(
            FX.server("dst-0").address(), "INSERT INTO app.items VALUES (" + id + ", 'new')");
      }
      FX.client()
          .resources(MySQLCluster.class)
          .inNamespace(FX.namespace())
          .withName("dst")
          .withTimeout(30, java.util.concurrent.TimeUnit.SECONDS)
          .delete();
      createFromOffsiteAndAwaitReady("dst");
      assertThat(cluster("dst").getStatus().getRestoredFrom())
          .isEqualTo("not loaded: the members already held data");
      List<Long> kept = LongStream.rangeClosed(1, 35).boxed().toList();
      assertThat(AppClient.ids(FX.server("dst-0").address())).isEqualTo(kept);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> AppClient.ids(FX.server("dst-1").address()).equals(kept));
      assertThat(FX.client().v1().events().inNamespace(FX.namespace()).list().getItems())
          .anySatisfy(
              e -> {
                assertThat(e.getReason()).isEqualTo("RestoreSkipped");
                assertThat(e.getMessage()).contains("already hold data", "nothing was loaded");
              });
    }
  }

  /** A two-instance MariaDB cluster bootstrapped from the backup "offsite", awaited to Ready. */
  private void createFromOffsiteAndAwaitReady(String name) {
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLCluster",
        FX.namespace(),
        name,
        "flavour: MariaDB\nversion: '10.11'\nreplicas: 2\nbootstrap: {fromBackup: {backupName: offsite}}");
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> "True/Replicating".equals(ready(cluster(name))));
  }

  @Test
  void aScheduleTheServerCannotCheckIsRefusedAndAMissingClusterReported() {
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLBackup",
        FX.namespace(),
        "badcron",
        "clusterName: src\nschedule: '61 * * * *'\nstore: {volume: {}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/InvalidSpec".equals(ready(backup("badcron"))));
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLBackup",
        FX.namespace(),
        "orphan",
        "clusterName: nowhere\nstore: {volume: {}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/WaitingForCluster".equals(ready(backup("orphan"))));
  }

  @Test
  void aStoreTheSchemaAcceptsButTheOperatorCannotUseIsNamedWithItsField() {
    String s3 = "{endpoint: 'http://127.0.0.1:1', bucket: backups, credentialsSecret: {name: ";
    // A prefix climbing out of the namespace passes the schema's pattern, not the operator.
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLBackup",
        FX.namespace(),
        "climbing",
        "clusterName: src\nstore: {s3: " + s3 + "c}, prefix: 'a/../../other'}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/InvalidSpec".equals(ready(backup("climbing"))));
    assertThat(message(backup("climbing"))).startsWith("invalid spec: store.s3.prefix: ");
    // A missing Secret may still be created: its own reason, retried.
    Crds.createRaw(
        FX.client(),
        "mysql.bosun.dev/v1alpha1",
        "MySQLBackup",
        FX.namespace(),
        "no-secret",
        "clusterName: src\nstore: {s3: " + s3 + "absent}}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "False/StoreUnavailable".equals(ready(backup("no-secret"))));
    assertThat(message(backup("no-secret")))
        .isEqualTo("Secret absent with the S3 credentials does not exist");
  }

  private static String message(MySQLBackup b) {
    return Conditions.find(b.getStatus().getConditions(), "Ready").orElseThrow().getMessage();
  }
}
