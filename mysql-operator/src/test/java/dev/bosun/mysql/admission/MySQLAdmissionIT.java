package dev.bosun.mysql.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.WebhookCaBundle;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.testing.AdmissionContract;
import dev.bosun.common.testing.AdmissionUnderTest.Applied;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.mysql.Main;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.testing.MySQLUnderTest;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The MySQL operator's admission webhook on the real API server (1.20, which ignores the CRD's CEL
 * rules): kubectl apply of each bad MySQLCluster and MySQLBackup in the tables is refused naming
 * the field, good ones are stored, and with the webhook down creates fail closed while status
 * writes, finalizers and deletes still pass.
 *
 * <p>The webhook is the operator's own ({@link Main#serveAdmission}) on this JVM, behind the
 * chart's own configuration ({@link AdmissionContract}).
 */
class MySQLAdmissionIT extends AdmissionContract {

  private static final String NS = "mysql-admission";
  private static final String API = "mysql.bosun.dev/v1alpha1";

  MySQLAdmissionIT() {
    super(NS, API, "mysqlclusters.mysql.bosun.dev", "mysqlbackups.mysql.bosun.dev");
  }

  @Override
  protected AdmissionWebhook serve(WebhookSettings settings) {
    return Main.serveAdmission(
        client,
        settings,
        // No backup volume: store.volume is refused, as by an operator deployed without one.
        new MySQLBackupStores(client, null));
  }

  private Applied kubectlApply(String name, String spec) throws Exception {
    return admission.apply(API, "MySQLCluster", name, spec);
  }

  private MySQLCluster get(String name) {
    return client.resources(MySQLCluster.class).inNamespace(NS).withName(name).get();
  }

  static Stream<Arguments> badSpecs() {
    String longName = "a".repeat(53);
    return Stream.of(
        // The CRD's CEL rules, which this API server does not run.
        Arguments.of(
            "MySQL at a MariaDB version",
            "cel-mysql",
            "version: '10.11'",
            "the MySQL flavour supports version 8.4.x"),
        Arguments.of(
            "MariaDB at a MySQL version",
            "cel-mariadb",
            "flavour: MariaDB\nversion: '8.4'",
            "the MariaDB flavour supports versions 10.11.x and 11.x"),
        // The checks the reconciler reports as InvalidSpec.
        Arguments.of("a name no Service can carry", longName, "replicas: 1", "metadata.name"),
        Arguments.of("a name with a dot", "db.one", "replicas: 1", "metadata.name"),
        Arguments.of(
            "the exporter on the server's port",
            "exporter-port",
            "port: 9104\nmetrics: {enabled: true, port: 9104}",
            "metrics.port"),
        Arguments.of(
            "a setting the operator owns",
            "owned",
            "serverConfig: {server_id: '7'}",
            "serverConfig.server_id"),
        Arguments.of(
            "an account kept for the server",
            "root-account",
            "users: [{name: root, databases: [shop]}]",
            "users[root]"),
        Arguments.of(
            "a system schema for an account",
            "system-schema",
            "users: [{name: shop, databases: [mysql]}]",
            "users[shop].databases"),
        Arguments.of(
            "a switchover target outside the cluster",
            "switch",
            "replicas: 2\nswitchover: {target: switch-5}",
            "switchover.target"));
  }

  static Stream<Arguments> badBackups() {
    String s3 = "{endpoint: 'http://s3.example', bucket: dumps, credentialsSecret: {name: s3}}";
    return Stream.of(
        // The CEL rule (exactly one of volume or s3) needs no row: the schema's min/maxProperties
        // hold it on 1.20 too, before any webhook is asked.
        // The checks the reconciler reports as InvalidSpec.
        Arguments.of(
            "a schedule that does not parse",
            "bad-cron",
            "clusterName: db\nschedule: '61 * * * *'\nstore: {s3: " + s3 + "}",
            "schedule: "),
        Arguments.of(
            "a volume the operator does not have",
            "no-volume",
            "clusterName: db\nstore: {volume: {}}",
            "store.volume needs the operator's backup volume"),
        Arguments.of(
            "an S3 endpoint without a usable host",
            "bad-endpoint",
            "clusterName: db\nstore: {s3: {endpoint: 'http://s3_store', bucket: dumps,"
                + " credentialsSecret: {name: s3}}}",
            "store.s3: "));
  }

  /** Both tables, each row with its kind. */
  static Stream<Arguments> badObjects() {
    return Stream.concat(
        badSpecs().map(row -> ofKind("MySQLCluster", row)),
        badBackups().map(row -> ofKind("MySQLBackup", row)));
  }

  private static Arguments ofKind(String kind, Arguments row) {
    Object[] r = row.get();
    return Arguments.of(r[0], kind, r[1], r[2], r[3]);
  }

  @Order(2)
  @Test
  void aCaBundleSomeoneChangesIsPutBack() {
    String current = admission.caBundle();
    client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .withName(admission.configuration())
        .edit(
            c -> {
              c.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(null));
              return c;
            });
    assertThat(admission.caBundle()).isNull();

    // The operator's keeper checks every 15 s; this one, on the same configuration, sooner.
    try (WebhookCaBundle keeper =
        WebhookCaBundle.keep(
            client,
            admission.configuration(),
            admission.webhook()::caBundlePem,
            Duration.ofMillis(200))) {
      await("the caBundle put back")
          .atMost(Duration.ofSeconds(30))
          .until(() -> current.equals(admission.caBundle()));
    }
  }

  @Order(2)
  @Test
  void aGoodBackupIsStored() throws Exception {
    Applied applied =
        admission.apply(
            API,
            "MySQLBackup",
            "nightly",
            "clusterName: db\nschedule: '@daily'\nstore: {s3: {endpoint: 'http://s3.example',"
                + " bucket: dumps, credentialsSecret: {name: s3}}}");

    assertThat(applied.exitCode()).as(applied.output()).isZero();
    assertThat(client.resources(MySQLBackup.class).inNamespace(NS).withName("nightly").get())
        .isNotNull();
  }

  @Order(2)
  @Test
  void aGoodSpecIsStoredAndAChangeIsJudgedAgainstTheRunningStatus() throws Exception {
    Applied good = kubectlApply("good", "flavour: MariaDB\nversion: '11.4'\nreplicas: 1");
    assertThat(good.exitCode()).as(good.output()).isZero();
    assertThat(get("good")).isNotNull();
    runs("good", "MariaDB", "11.4");

    Applied downgrade = kubectlApply("good", "flavour: MariaDB\nversion: '10.11'\nreplicas: 1");
    assertThat(downgrade.exitCode()).as(downgrade.output()).isNotZero();
    assertThat(downgrade.output()).contains("version 10.11 is lower than the running 11.4");

    Applied flavour = kubectlApply("good", "flavour: MySQL\nversion: '8.4'\nreplicas: 1");
    assertThat(flavour.exitCode()).as(flavour.output()).isNotZero();
    assertThat(flavour.output()).contains("the flavour cannot change (the cluster runs MariaDB)");

    Applied grow = kubectlApply("good", "flavour: MariaDB\nversion: '11.4'\nreplicas: 3");
    assertThat(grow.exitCode()).as(grow.output()).isZero();
    assertThat(get("good").getSpec().getReplicas()).isEqualTo(3);
  }

  @Order(3)
  @Test
  void withTheWebhookDownCreatesAreRefusedButTheOperatorsStatusWritesAndDeletesPass()
      throws Exception {
    assertThat(kubectlApply("kept", "flavour: MariaDB\nversion: '11.4'").exitCode()).isZero();
    admission.stopWebhook();

    // Creates fail closed: the webhook is really down, and a spec it cannot see is not stored.
    admission.assertCreateFailsClosed(
        API, "MySQLCluster", "unseen", "flavour: MariaDB\nversion: '11.4'");

    // The operator's status writes go to the status subresource, which no rule matches: the
    // operator, started now, reconciles "kept" (no server answers for its Pods) and records it.
    assertThat(get("kept").getStatus()).isNull();
    try (RunningOperator operator = new MySQLUnderTest().operator.start()) {
      await("the operator's status write")
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                MySQLClusterStatus status = get("kept").getStatus();
                return status != null
                    && status.getConditions() != null
                    && !status.getConditions().isEmpty();
              });
    }

    // Updates fail open and DELETE is never sent: a finalizer goes on and comes off, and the
    // delete it held completes.
    admission.assertDeletedThroughAFinalizer(API, "MySQLCluster", "kept");
  }

  /** Writes, as the operator does, the status saying what the cluster runs. */
  private void runs(String name, String flavour, String version) {
    MySQLCluster c = get(name);
    MySQLClusterStatus status = c.getStatus() == null ? new MySQLClusterStatus() : c.getStatus();
    status.setFlavour(flavour);
    status.setVersion(version);
    c.setStatus(status);
    client.resources(MySQLCluster.class).inNamespace(NS).resource(c).updateStatus();
  }
}
