package dev.bosun.mysql.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The real API server rejects malformed MySQLClusters and MySQLBackups naming the field. */
@ExtendWith(ControlPlaneExtension.class)
class MySQLSchemaIT {

  private static final String NS = "mysql-schema";
  private static KubernetesClient client;

  @BeforeAll
  static void installCrds() {
    client = ControlPlaneExtension.controlPlane().adminClient();
    Crds.install(client, "mysqlclusters.mysql.bosun.dev", "mysqlbackups.mysql.bosun.dev");
    Crds.namespace(client, NS, Map.of(), Map.of());
  }

  @AfterAll
  static void cleanup() {
    client.namespaces().withName(NS).delete();
    client.close();
  }

  private static GenericKubernetesResource cluster(String name, String spec) {
    return Crds.createRaw(client, "mysql.bosun.dev/v1alpha1", "MySQLCluster", NS, name, spec);
  }

  private static GenericKubernetesResource backup(String name, String spec) {
    return Crds.createRaw(client, "mysql.bosun.dev/v1alpha1", "MySQLBackup", NS, name, spec);
  }

  static Stream<Arguments> invalidClusters() {
    return Stream.of(
        Arguments.of("zero replicas", "replicas: 0", "spec.replicas"),
        Arguments.of("ten replicas", "replicas: 10", "spec.replicas"),
        Arguments.of("replicas as text", "replicas: three", "spec.replicas"),
        Arguments.of("unknown flavour", "flavour: Postgres", "spec.flavour"),
        Arguments.of("version not numeric", "version: latest", "spec.version"),
        Arguments.of("image with spaces", "image: 'my sql'", "spec.image"),
        Arguments.of("port below 1024", "port: 80", "spec.port"),
        Arguments.of("port above 65535", "port: 70000", "spec.port"),
        Arguments.of("storage size without unit", "storage: {size: '10'}", "spec.storage.size"),
        Arguments.of("bad storage class", "storage: {storageClassName: Fast_SSD}", "spec.storage"),
        Arguments.of("bad cpu", "resources: {requests: {cpu: lots}}", "spec.resources.requests"),
        Arguments.of(
            "bad memory", "resources: {limits: {memory: 2GB}}", "spec.resources.limits.memory"),
        Arguments.of("root secret without name", "rootPasswordSecret: {key: pw}", "name"),
        Arguments.of(
            "root secret bad name", "rootPasswordSecret: {name: Root_PW}", "rootPasswordSecret"),
        Arguments.of(
            "server config with newline",
            "serverConfig: {max_connections: \"10\\nskip-grant-tables\"}",
            "spec.serverConfig"),
        Arguments.of(
            "failover timeout 0",
            "failover: {primaryUnavailableSeconds: 0}",
            "spec.failover.primaryUnavailableSeconds"),
        Arguments.of(
            "semi-sync timeout 10ms",
            "semiSync: {timeoutMilliseconds: 10}",
            "spec.semiSync.timeoutMilliseconds"),
        Arguments.of(
            "semi-sync timeout below the 10 s floor",
            "semiSync: {timeoutMilliseconds: 5000}",
            "spec.semiSync.timeoutMilliseconds"),
        Arguments.of(
            "account name with a quote",
            "users: [{name: \"a'b\", databases: [shop]}]",
            "spec.users.name"),
        Arguments.of("account without databases", "users: [{name: shop}]", "databases"),
        Arguments.of(
            "account privilege that is server-wide",
            "users: [{name: shop, databases: [shop], privileges: [SUPER]}]",
            "spec.users.privileges"),
        Arguments.of(
            "account database with a dot",
            "users: [{name: shop, databases: [a.b]}]",
            "spec.users.databases"),
        Arguments.of(
            "switchover target bad name", "switchover: {target: DB_1}", "spec.switchover.target"),
        Arguments.of("fromBackup without name", "bootstrap: {fromBackup: {key: a}}", "backupName"),
        Arguments.of(
            "fromBackup key with spaces",
            "bootstrap: {fromBackup: {backupName: b, key: 'a b'}}",
            "spec.bootstrap.fromBackup.key"));
  }

  static Stream<Arguments> invalidBackups() {
    String vol = "store: {volume: {}}";
    return Stream.of(
        Arguments.of("no cluster", vol, "spec.clusterName"),
        Arguments.of("no store", "clusterName: db", "spec.store"),
        Arguments.of("bad cluster name", "clusterName: DB\n" + vol, "spec.clusterName"),
        Arguments.of("keep 0", "clusterName: db\nkeep: 0\n" + vol, "spec.keep"),
        Arguments.of(
            "schedule of 3 fields", "clusterName: db\nschedule: '* * *'\n" + vol, "spec.schedule"),
        Arguments.of(
            "unknown macro", "clusterName: db\nschedule: '@sometimes'\n" + vol, "spec.schedule"),
        Arguments.of(
            "prefix escaping the volume",
            "clusterName: db\nstore: {volume: {prefix: ../etc}}",
            "spec.store.volume.prefix"),
        Arguments.of(
            "both volume and s3",
            "clusterName: db\nstore: {volume: {}, s3: {endpoint: 'http://127.0.0.1:1', bucket: bkp, credentialsSecret: {name: s}}}",
            "spec.store"),
        Arguments.of(
            "s3 without bucket",
            "clusterName: db\nstore: {s3: {endpoint: 'http://127.0.0.1:1', credentialsSecret: {name: s}}}",
            "spec.store.s3.bucket"),
        Arguments.of(
            "s3 endpoint not a url",
            "clusterName: db\nstore: {s3: {endpoint: 's3.example', bucket: bkp, credentialsSecret: {name: s}}}",
            "spec.store.s3.endpoint"),
        Arguments.of(
            "s3 without credentials",
            "clusterName: db\nstore: {s3: {endpoint: 'http://127.0.0.1:1', bucket: bkp}}",
            "spec.store.s3.credentialsSecret"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidClusters")
  void clusterRejected(String description, String spec, String expectedMessage) {
    String name = "c-" + description.replaceAll("[^a-z0-9]+", "-");
    assertThatThrownBy(() -> cluster(name, spec))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .hasMessageContaining(expectedMessage);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBackups")
  void backupRejected(String description, String spec, String expectedMessage) {
    String name = "b-" + description.replaceAll("[^a-z0-9]+", "-");
    assertThatThrownBy(() -> backup(name, spec))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .hasMessageContaining(expectedMessage);
  }

  @Test
  void anEmptyClusterSpecIsDefaultedToAThreeInstanceMySql84() {
    GenericKubernetesResource created = cluster("minimal", "{}");
    @SuppressWarnings("unchecked")
    var spec = (Map<String, Object>) created.getAdditionalProperties().get("spec");
    assertThat(spec)
        .containsEntry("replicas", 3)
        .containsEntry("flavour", "MySQL")
        .containsEntry("version", "8.4")
        .containsEntry("port", 3306)
        .containsEntry("storage", Map.of("size", "10Gi"))
        .containsEntry("failover", Map.of("enabled", true, "primaryUnavailableSeconds", 30));
  }

  @Test
  void theSamplesAreAcceptedByTheServer() throws Exception {
    for (String sample :
        new String[] {
          "samples/orders-db.yaml",
          "samples/orders-db-nightly.yaml",
          "samples/catalog-db-mariadb.yaml"
        }) {
      try (var in = Files.newInputStream(Path.of(sample))) {
        var item = client.load(in).items().get(0);
        var accepted = client.resource(item).inNamespace(NS).dryRun().create();
        assertThat(accepted.getMetadata().getName()).isEqualTo(item.getMetadata().getName());
        assertThat(accepted.getKind()).isIn("MySQLCluster", "MySQLBackup");
      }
    }
  }
}
