package dev.bosun.etcd.crd;

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

/** The real API server rejects malformed EtcdClusters and EtcdBackups, naming the field. */
@ExtendWith(ControlPlaneExtension.class)
class EtcdSchemaIT {

  private static final String NS = "etcd-schema";
  private static final String API = "etcd.bosun.dev/v1alpha1";
  private static KubernetesClient client;

  @BeforeAll
  static void installCrds() {
    client = ControlPlaneExtension.controlPlane().adminClient();
    Crds.install(client, "etcdclusters.etcd.bosun.dev", "etcdbackups.etcd.bosun.dev");
    Crds.namespace(client, NS, Map.of(), Map.of());
  }

  @AfterAll
  static void cleanup() {
    client.namespaces().withName(NS).delete();
    client.close();
  }

  static final String V = "version: 3.4.23\n";

  static Stream<Arguments> invalidClusters() {
    return Stream.of(
        Arguments.of("no version", "size: 3", "spec.version: Required value"),
        Arguments.of("version not x.y.z", "version: latest", "spec.version"),
        Arguments.of("version 4.x", "version: 4.0.1", "spec.version"),
        Arguments.of("size 0", V + "size: 0", "spec.size"),
        Arguments.of("size 10", V + "size: 10", "spec.size"),
        Arguments.of("size as text", V + "size: three", "spec.size"),
        Arguments.of(
            "repository with a tag", V + "repository: 'quay.io/coreos/etcd:v3'", "spec.repository"),
        Arguments.of("storage size in bytes", V + "storage: {size: '1000'}", "spec.storage.size"),
        Arguments.of("storage size 1.5Gi", V + "storage: {size: 1.5Gi}", "spec.storage.size"),
        Arguments.of(
            "bad storage class",
            V + "storage: {storageClassName: 'Fast SSD'}",
            "spec.storage.storageClassName"),
        Arguments.of(
            "unknown scale-down policy",
            V + "storage: {whenScaledDown: Archive}",
            "spec.storage.whenScaledDown"),
        Arguments.of(
            "unknown deletion policy",
            V + "storage: {whenDeleted: Keep}",
            "spec.storage.whenDeleted"),
        Arguments.of(
            "bad cpu", V + "resources: {requests: {cpu: lots}}", "spec.resources.requests.cpu"),
        Arguments.of(
            "bad memory", V + "resources: {limits: {memory: 1GB}}", "spec.resources.limits.memory"),
        Arguments.of(
            "unknown anti-affinity", V + "pod: {antiAffinity: Always}", "spec.pod.antiAffinity"),
        Arguments.of(
            "bad priority class",
            V + "pod: {priorityClassName: 'High!'}",
            "spec.pod.priorityClassName"),
        Arguments.of(
            "too many node selectors",
            V + "pod: {nodeSelector: {" + manyEntries(17) + "}}",
            "spec.pod.nodeSelector"),
        Arguments.of(
            "bad toleration operator",
            V + "pod: {tolerations: [{key: a, operator: Maybe}]}",
            "spec.pod.tolerations.operator"),
        Arguments.of(
            "bad toleration effect",
            V + "pod: {tolerations: [{key: a, effect: Evict}]}",
            "spec.pod.tolerations.effect"),
        Arguments.of(
            "bad pod label value", V + "pod: {labels: {team: 'a b'}}", "spec.pod.labels.team"),
        Arguments.of(
            "bad TLS secret name",
            V + "tls: {serverSecretName: Server_TLS, operatorSecretName: op}",
            "spec.tls.serverSecretName"),
        Arguments.of(
            "bootstrap without backup name",
            V + "bootstrap: {fromBackup: {}}",
            "spec.bootstrap.fromBackup.backupName"),
        Arguments.of(
            "recovery after 5 s",
            V + "disasterRecovery: {restoreFromBackup: b, afterSeconds: 5}",
            "spec.disasterRecovery.afterSeconds"),
        Arguments.of(
            "recovery from snapshots up to 1 minute old",
            V + "disasterRecovery: {restoreFromBackup: b, maxSnapshotAgeMinutes: 1}",
            "spec.disasterRecovery.maxSnapshotAgeMinutes"),
        Arguments.of(
            "recovery from snapshots up to a year old",
            V + "disasterRecovery: {restoreFromBackup: b, maxSnapshotAgeMinutes: 525600}",
            "spec.disasterRecovery.maxSnapshotAgeMinutes"));
  }

  static Stream<Arguments> invalidBackups() {
    String vol = "store: {volume: {}}\n";
    return Stream.of(
        Arguments.of("no cluster", vol, "spec.clusterName: Required value"),
        Arguments.of("no store", "clusterName: demo", "spec.store: Required value"),
        Arguments.of("empty store", "clusterName: demo\nstore: {}", "spec.store"),
        Arguments.of(
            "both stores",
            "clusterName: demo\nstore: {volume: {}, s3: {endpoint: 'http://s3', bucket: bkt, credentialsSecret: {name: c}}}",
            "spec.store"),
        Arguments.of("bad cluster name", "clusterName: Demo\n" + vol, "spec.clusterName"),
        Arguments.of(
            "schedule with 3 fields",
            "clusterName: demo\nschedule: '0 2 *'\n" + vol,
            "spec.schedule"),
        Arguments.of(
            "unknown macro", "clusterName: demo\nschedule: '@sometimes'\n" + vol, "spec.schedule"),
        Arguments.of("keep 0", "clusterName: demo\nkeep: 0\n" + vol, "spec.keep"),
        Arguments.of("keep 5000", "clusterName: demo\nkeep: 5000\n" + vol, "spec.keep"),
        Arguments.of(
            "volume prefix escaping",
            "clusterName: demo\nstore: {volume: {prefix: '../etc'}}",
            "spec.store.volume.prefix"),
        Arguments.of(
            "s3 without bucket",
            "clusterName: demo\nstore: {s3: {endpoint: 'http://s3', credentialsSecret: {name: c}}}",
            "spec.store.s3.bucket"),
        Arguments.of(
            "s3 endpoint not a URL",
            "clusterName: demo\nstore: {s3: {endpoint: 's3.local', bucket: bkt, credentialsSecret: {name: c}}}",
            "spec.store.s3.endpoint"),
        Arguments.of(
            "s3 bucket with capitals",
            "clusterName: demo\nstore: {s3: {endpoint: 'http://s3', bucket: Backups, credentialsSecret: {name: c}}}",
            "spec.store.s3.bucket"),
        Arguments.of(
            "s3 without credentials",
            "clusterName: demo\nstore: {s3: {endpoint: 'http://s3', bucket: bkt}}",
            "spec.store.s3.credentialsSecret"));
  }

  static String manyEntries(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ", ").append("k").append(i).append(": v");
    }
    return sb.toString();
  }

  @ParameterizedTest(name = "EtcdCluster: {0}")
  @MethodSource("invalidClusters")
  void clusterRejected(String description, String spec, String expectedMessage) {
    assertRejected("EtcdCluster", description, spec, expectedMessage);
  }

  @ParameterizedTest(name = "EtcdBackup: {0}")
  @MethodSource("invalidBackups")
  void backupRejected(String description, String spec, String expectedMessage) {
    assertRejected("EtcdBackup", description, spec, expectedMessage);
  }

  private static void assertRejected(
      String kind, String description, String spec, String expected) {
    String name = description.toLowerCase().replaceAll("[^a-z0-9]+", "-").replaceAll("-$", "");
    assertThatThrownBy(() -> Crds.createRaw(client, API, kind, NS, name, spec))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .hasMessageContaining(expected);
  }

  @Test
  void aMinimalClusterIsAcceptedAndDefaulted() {
    GenericKubernetesResource created =
        Crds.createRaw(client, API, "EtcdCluster", NS, "minimal", V);
    @SuppressWarnings("unchecked")
    var spec = (Map<String, Object>) created.getAdditionalProperties().get("spec");
    assertThat(spec)
        .containsEntry("size", 3)
        .containsEntry("repository", "gcr.io/etcd-development/etcd")
        .containsEntry(
            "storage", Map.of("size", "1Gi", "whenScaledDown", "Delete", "whenDeleted", "Retain"));
    GenericKubernetesResource recovering =
        Crds.createRaw(
            client,
            API,
            "EtcdCluster",
            NS,
            "recovering",
            V + "disasterRecovery: {restoreFromBackup: b}");
    @SuppressWarnings("unchecked")
    var dr =
        (Map<String, Object>)
            ((Map<String, Object>) recovering.getAdditionalProperties().get("spec"))
                .get("disasterRecovery");
    assertThat(dr).containsEntry("afterSeconds", 300).containsEntry("maxSnapshotAgeMinutes", 1440);
  }

  @Test
  void aMinimalBackupIsAcceptedAndDefaulted() {
    GenericKubernetesResource created =
        Crds.createRaw(
            client, API, "EtcdBackup", NS, "minimal", "clusterName: demo\nstore: {volume: {}}");
    @SuppressWarnings("unchecked")
    var spec = (Map<String, Object>) created.getAdditionalProperties().get("spec");
    assertThat(spec).containsEntry("keep", 7);
  }

  @Test
  void theSamplesAreAcceptedByTheServer() throws Exception {
    for (String sample : new String[] {"samples/etcdcluster.yaml", "samples/etcdbackup.yaml"}) {
      try (var in = Files.newInputStream(Path.of(sample))) {
        var item = client.load(in).items().get(0);
        var accepted = client.resource(item).inNamespace(NS).dryRun().create();
        assertThat(accepted.getMetadata().getName()).as(sample).isNotEmpty();
      }
    }
  }
}
