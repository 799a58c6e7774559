package dev.bosun.mysql.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.WebhookCaBundle;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.mysql.Main;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.reconciler.BackupAdmission;
import dev.bosun.mysql.reconciler.ClusterAdmission;
import dev.bosun.mysql.testing.MySQLUnderTest;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import dev.bosun.mysql.v1alpha1.MySQLClusterStatus;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MySQL operator's admission webhook on the real API server (1.20, which ignores the CRD's CEL
 * rules): kubectl apply of each bad MySQLCluster and MySQLBackup in the tables is refused naming
 * the field, good ones are stored, and with the webhook down (failurePolicy Fail) status writes and
 * deletes still pass.
 *
 * <p>The webhook is the operator's own ({@link Main#serveAdmission}) on this JVM; the API server
 * calls it at https://localhost:port (the name its certificate carries), and only for this class's
 * namespace, so the other tests of the control plane never meet it.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MySQLAdmissionIT {

  private static final String NS = "mysql-admission";
  private static final String CONFIGURATION =
      "mysql-admission-it-" + UUID.randomUUID().toString().substring(0, 6);
  private static final String API = "mysql.bosun.dev/v1alpha1";
  private static KubernetesClient client;
  private static AdmissionWebhook webhook;

  @BeforeAll
  static void serveTheWebhook() throws IOException {
    client = ControlPlaneExtension.controlPlane().adminClient();
    Crds.install(client, "mysqlclusters.mysql.bosun.dev", "mysqlbackups.mysql.bosun.dev");
    Crds.namespace(client, NS, Map.of("bosun.dev/admission-test", CONFIGURATION), Map.of());
    int port = freePort();
    // As the chart installs it: no caBundle yet, which the operator fills in.
    client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .resource(configuration(port))
        .create();
    webhook =
        Main.serveAdmission(
            client,
            new WebhookSettings(port, CONFIGURATION, NS, "admission-tls", List.of("localhost")),
            // No backup volume: store.volume is refused, as by an operator deployed without one.
            new MySQLBackupStores(client, null));
    String expected =
        Base64.getEncoder().encodeToString(webhook.caBundlePem().getBytes(StandardCharsets.UTF_8));
    await("the operator sets the caBundle")
        .atMost(Duration.ofSeconds(30))
        .until(() -> expected.equals(caBundle()));
  }

  @AfterAll
  static void cleanup() {
    if (webhook != null) {
      webhook.close();
    }
    client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .withName(CONFIGURATION)
        .delete();
    client.namespaces().withName(NS).delete();
    client.close();
  }

  /** The configuration the chart renders, but calling this JVM by URL and this namespace only. */
  private static ValidatingWebhookConfiguration configuration(int port) {
    return new ValidatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(CONFIGURATION)
        .endMetadata()
        .withWebhooks(
            webhook(port, "mysqlclusters", ClusterAdmission.PATH),
            webhook(port, "mysqlbackups", BackupAdmission.PATH))
        .build();
  }

  private static ValidatingWebhook webhook(int port, String resource, String path) {
    return new ValidatingWebhookBuilder()
        .withName(resource + ".mysql.bosun.dev")
        .withNewClientConfig()
        .withUrl("https://localhost:" + port + path)
        .endClientConfig()
        .addNewRule()
        .withApiGroups("mysql.bosun.dev")
        .withApiVersions("v1alpha1")
        .withResources(resource)
        .withOperations("CREATE", "UPDATE")
        .endRule()
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of("bosun.dev/admission-test", CONFIGURATION))
        .endNamespaceSelector()
        .withFailurePolicy("Fail")
        .withSideEffects("None")
        .withTimeoutSeconds(5)
        .withAdmissionReviewVersions("v1")
        .build();
  }

  private static String caBundle() {
    ValidatingWebhookConfiguration c =
        client
            .admissionRegistration()
            .v1()
            .validatingWebhookConfigurations()
            .withName(CONFIGURATION)
            .get();
    // Every webhook of the configuration, or the API server cannot verify one of the routes.
    List<String> bundles =
        c.getWebhooks().stream().map(w -> w.getClientConfig().getCaBundle()).distinct().toList();
    return bundles.size() == 1 ? bundles.get(0) : null;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** What kubectl apply printed and its exit code. */
  private record Applied(int exitCode, String output) {}

  private static Applied kubectlApply(String name, String spec) throws Exception {
    return kubectlApply("MySQLCluster", name, spec);
  }

  private static Applied kubectlApply(String kind, String name, String spec) throws Exception {
    String yaml =
        "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n%s"
            .formatted(API, kind, name, NS, spec.indent(2));
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            "kubectl",
            "--kubeconfig",
            ControlPlaneExtension.controlPlane().kubeconfig().toString(),
            "apply",
            "-f",
            "-"));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(yaml.getBytes(StandardCharsets.UTF_8));
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Applied(p.exitValue(), output);
  }

  private static MySQLCluster get(String name) {
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
    return Arguments.of(r[0] + " (" + kind + ")", kind, r[1], r[2], r[3]);
  }

  @Order(1)
  @ParameterizedTest(name = "{0}")
  @MethodSource("badObjects")
  void kubectlApplyOfEachBadObjectIsRefusedNamingTheField(
      String what, String kind, String name, String spec, String field) throws Exception {
    Applied applied = kubectlApply(kind, name, spec);

    String webhook = kind.toLowerCase(java.util.Locale.ROOT) + "s.mysql.bosun.dev";
    assertThat(applied.exitCode()).as(applied.output()).isNotZero();
    assertThat(applied.output())
        .contains("admission webhook \"" + webhook + "\" denied the request")
        .contains("invalid spec: ")
        .contains(field);
    assertThat(client.genericKubernetesResources(API, kind).inNamespace(NS).withName(name).get())
        .isNull();
  }

  @Order(2)
  @Test
  void aCaBundleSomeoneChangesIsPutBack() {
    String current = caBundle();
    client
        .admissionRegistration()
        .v1()
        .validatingWebhookConfigurations()
        .withName(CONFIGURATION)
        .edit(
            c -> {
              c.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(null));
              return c;
            });
    assertThat(caBundle()).isNull();

    // The operator's keeper checks every minute; this one, on the same configuration, sooner.
    try (WebhookCaBundle keeper =
        WebhookCaBundle.keep(client, CONFIGURATION, webhook::caBundlePem, Duration.ofMillis(200))) {
      await("the caBundle put back")
          .atMost(Duration.ofSeconds(30))
          .until(() -> current.equals(caBundle()));
    }
  }

  @Order(2)
  @Test
  void aGoodBackupIsStored() throws Exception {
    Applied applied =
        kubectlApply(
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
    webhook.close();

    // failurePolicy Fail: the webhook is really down, and a spec it cannot see is not stored.
    Applied unseen = kubectlApply("unseen", "flavour: MariaDB\nversion: '11.4'");
    assertThat(unseen.exitCode()).as(unseen.output()).isNotZero();
    assertThat(unseen.output()).contains("failed calling webhook");
    assertThat(get("unseen")).isNull();

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

    // DELETE is never sent to the webhook.
    assertThat(client.resources(MySQLCluster.class).inNamespace(NS).withName("kept").delete())
        .isNotEmpty();
    await("deleted").atMost(Duration.ofSeconds(30)).until(() -> get("kept") == null);
  }

  /** Writes, as the operator does, the status saying what the cluster runs. */
  private static void runs(String name, String flavour, String version) {
    MySQLCluster c = get(name);
    MySQLClusterStatus status = c.getStatus() == null ? new MySQLClusterStatus() : c.getStatus();
    status.setFlavour(flavour);
    status.setVersion(version);
    c.setStatus(status);
    client.resources(MySQLCluster.class).inNamespace(NS).resource(c).updateStatus();
  }
}
