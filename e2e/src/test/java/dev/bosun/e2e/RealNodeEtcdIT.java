package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.PodExec;
import dev.bosun.common.testing.RealNodeExtension;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.Resources;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An EtcdCluster as real containers on the real node, run by the etcd operator's chart Pods from
 * the operator's own Pod specs: members find each other by their peer Service's DNS names, a writer
 * in another Pod reaches the cluster by its client Service name while it scales 3 -> 5 -> 3, and
 * every acknowledged key is read back; a deleted member Pod comes back as the same member on its
 * claim. An EtcdBackup on the operator's backup volume is restored into a new cluster of three: the
 * first member's init containers fetch the snapshot from the operator and restore it.
 */
@ExtendWith(RealNodeExtension.class)
class RealNodeEtcdIT {

  private static final String NS = "etcd-team";
  private static final String REPOSITORY = "docker.io/bosun/etcd";
  private static final String VERSION = "3.4.23";
  private static RealNodePlatform platform;
  private static KubernetesClient admin;

  @BeforeAll
  static void install() {
    platform = RealNodePlatform.shared();
    admin = platform.admin();
    // Debian's etcd 3.4.23 is the only etcd here: the workloads image under an etcd reference.
    platform
        .cluster()
        .node()
        .tagImage(platform.cluster().node().workloadsImage(), REPOSITORY + ":v" + VERSION);
    RealNodePods.namespace(admin, NS, Map.of());
  }

  @Test
  void scalesThreeFiveThreeUnderAWriterThatLosesNoAcknowledgedKeyAndAMemberComesBackOnItsClaim() {
    admin
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: etcd.bosun.dev/v1alpha1
                kind: EtcdCluster
                metadata: {name: kv, namespace: %s}
                spec:
                  size: 3
                  repository: %s
                  version: "%s"
                  storage: {size: 256Mi, whenScaledDown: Delete, whenDeleted: Delete}
                """
                    .formatted(NS, REPOSITORY, VERSION),
                GenericKubernetesResource.class))
        .create();
    awaitReadyWithMembers(3);
    RealNodePods.run(
        admin,
        NS,
        RealNodePods.shell("writer", platform.cluster().node().workloadsImage(), Map.of()));

    CompletableFuture<PodExec.Result> writes =
        CompletableFuture.supplyAsync(
            () ->
                PodExec.sh(
                    admin,
                    NS,
                    "writer",
                    Duration.ofMinutes(7),
                    // Bounded: 4000 writes or 6 minutes; stops early when /tmp/stop appears.
                    "i=0; end=$(( $(date +%s) + 360 ));"
                        + " while [ $i -lt 4000 ] && [ $(date +%s) -lt $end ] && [ ! -f /tmp/stop ]; do"
                        + " if etcdctl --endpoints=http://kv-client:2379 --dial-timeout=2s"
                        + " --command-timeout=3s put key-$i v$i >/dev/null 2>&1; then echo ack $i;"
                        + " else echo fail $i; fi; i=$((i+1)); done; echo done"));

    setSize(5);
    awaitReadyWithMembers(5);
    setSize(3);
    awaitReadyWithMembers(3);
    PodExec.sh(admin, NS, "writer", Duration.ofSeconds(10), "touch /tmp/stop");
    String out = writes.join().stdout();
    Set<Integer> acked = RealNodePods.numbered(out, "ack");
    int failed = RealNodePods.numbered(out, "fail").size();
    System.err.printf(
        "[e2e] etcd 3 -> 5 -> 3: %d writes acknowledged, %d failed%n", acked.size(), failed);
    assertThat(acked).as("acknowledged writes").hasSizeGreaterThan(50);

    String stored =
        PodExec.sh(
                admin,
                NS,
                "writer",
                Duration.ofSeconds(60),
                "etcdctl --endpoints=http://kv-client:2379 get key- --prefix --keys-only")
            .stdout();
    Set<Integer> present =
        Pattern.compile("key-(\\d+)")
            .matcher(stored)
            .results()
            .map(r -> Integer.parseInt(r.group(1)))
            .collect(Collectors.toSet());
    Set<Integer> lost = new HashSet<>(acked);
    lost.removeAll(present);
    assertThat(lost).as("acknowledged keys missing after 3 -> 5 -> 3").isEmpty();

    // A member Pod deleted comes back as the same member on the same claim.
    String before = memberList();
    String claimUid =
        admin.persistentVolumeClaims().inNamespace(NS).list().getItems().stream()
            .filter(c -> c.getMetadata().getName().contains("kv-1"))
            .findFirst()
            .orElseThrow()
            .getMetadata()
            .getUid();
    admin.pods().inNamespace(NS).withName("kv-1").withGracePeriod(0).delete();
    await("kv-1 re-created and the cluster Ready")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              Pod p = admin.pods().inNamespace(NS).withName("kv-1").get();
              return p != null
                  && p.getMetadata().getDeletionTimestamp() == null
                  && RealNodePods.ready(p)
                  && clusterReady(3);
            });
    assertThat(memberIds(memberList())).isEqualTo(memberIds(before));
    assertThat(
            admin.persistentVolumeClaims().inNamespace(NS).list().getItems().stream()
                .filter(c -> c.getMetadata().getName().contains("kv-1"))
                .findFirst()
                .orElseThrow()
                .getMetadata()
                .getUid())
        .isEqualTo(claimUid);
  }

  @Test
  void aSnapshotOnTheOperatorsBackupVolumeIsRestoredIntoANewCluster() {
    etcdCluster("config", 1, "");
    awaitReady("config", 1);
    RealNodePods.run(
        admin,
        NS,
        RealNodePods.shell("config-shell", platform.cluster().node().workloadsImage(), Map.of()));
    PodExec.Result written =
        PodExec.sh(
            admin,
            NS,
            "config-shell",
            Duration.ofMinutes(2),
            "for i in $(seq 1 100); do"
                + " etcdctl --endpoints=http://config-client:2379 put /app/setting-$i value-$i"
                + " >/dev/null || exit 1; done;"
                + " etcdctl --endpoints=http://config-client:2379 get /app/ --prefix --keys-only"
                + " | grep -c setting");
    assertThat(written.stdout().trim())
        .as("keys in the source cluster " + written)
        .isEqualTo("100");
    // A snapshot to the operator's backup volume.
    Resources.apply(
        admin,
        NS,
        """
        apiVersion: etcd.bosun.dev/v1alpha1
        kind: EtcdBackup
        metadata: {name: config-snapshots}
        spec: {clusterName: config, store: {volume: {}}}
        """);
    Resources.awaitReady(
        admin,
        "etcd.bosun.dev/v1alpha1",
        "EtcdBackup",
        NS,
        "config-snapshots",
        Duration.ofMinutes(3));

    etcdCluster("config-copy", 3, "  bootstrap: {fromBackup: {backupName: config-snapshots}}\n");
    awaitReady("config-copy", 3);
    // What the first member's init containers did: fetched from the operator, restored, installed.
    platform.describe(admin.pods().inNamespace(NS).withName("config-copy-0").get());
    String restored =
        PodExec.sh(
                admin,
                NS,
                "config-shell",
                Duration.ofSeconds(30),
                "etcdctl --endpoints=http://config-copy-client:2379 get /app/ --prefix --keys-only"
                    + " | grep -c setting; etcdctl --endpoints=http://config-copy-client:2379"
                    + " get /app/setting-42 --print-value-only")
            .stdout();
    assertThat(restored.lines().toList())
        .as("keys and a value read from the restored cluster")
        .containsExactly("100", "value-42");
    @SuppressWarnings("unchecked")
    Map<String, Object> status =
        (Map<String, Object>)
            Resources.get(admin, "etcd.bosun.dev/v1alpha1", "EtcdCluster", NS, "config-copy")
                .getAdditionalProperties()
                .get("status");
    System.err.println("[e2e] config-copy restored from " + status.get("restoredFrom"));
    assertThat(String.valueOf(status.get("restoredFrom"))).isNotBlank().isNotEqualTo("null");
  }

  private void etcdCluster(String name, int size, String extraSpec) {
    admin
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: etcd.bosun.dev/v1alpha1
                kind: EtcdCluster
                metadata: {name: %s, namespace: %s}
                spec:
                  size: %d
                  repository: %s
                  version: "%s"
                  storage: {size: 128Mi, whenScaledDown: Delete, whenDeleted: Delete}
                %s"""
                    .formatted(name, NS, size, REPOSITORY, VERSION, extraSpec),
                GenericKubernetesResource.class))
        .create();
  }

  private void awaitReady(String name, int size) {
    try {
      await("EtcdCluster " + name + " Ready with " + size + " members running as containers")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> clusterReady(name, size));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      System.err.println(
          "[e2e] EtcdCluster "
              + name
              + ": "
              + Resources.get(admin, "etcd.bosun.dev/v1alpha1", "EtcdCluster", NS, name)
                  .getAdditionalProperties()
                  .get("status"));
      members(name).forEach(platform::describe);
      platform.pods("etcd").forEach(platform::describe);
      throw e;
    }
  }

  private String memberList() {
    return PodExec.sh(
            admin,
            NS,
            "writer",
            Duration.ofSeconds(30),
            "etcdctl --endpoints=http://kv-client:2379 member list")
        .stdout();
  }

  /** "id, started, name, ..." lines: the member IDs by name. */
  private static Map<String, String> memberIds(String memberList) {
    return memberList
        .lines()
        .map(l -> l.split(",\\s*"))
        .filter(f -> f.length > 2)
        .collect(Collectors.toMap(f -> f[2], f -> f[0]));
  }

  private void setSize(int size) {
    Edits.edit(
        admin
            .genericKubernetesResources("etcd.bosun.dev/v1alpha1", "EtcdCluster")
            .inNamespace(NS)
            .withName("kv"),
        r -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
          spec.put("size", size);
          return r;
        });
  }

  private void awaitReadyWithMembers(int size) {
    awaitReady("kv", size);
  }

  private boolean clusterReady(int size) {
    return clusterReady("kv", size);
  }

  private List<Pod> members(String cluster) {
    return admin
        .pods()
        .inNamespace(NS)
        .withLabel("app.kubernetes.io/instance", cluster)
        .list()
        .getItems();
  }

  private boolean clusterReady(String name, int size) {
    long running =
        members(name).stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null && RealNodePods.ready(p))
            .count();
    return running == size
        && Resources.ready(
            Resources.get(admin, "etcd.bosun.dev/v1alpha1", "EtcdCluster", NS, name));
  }
}
