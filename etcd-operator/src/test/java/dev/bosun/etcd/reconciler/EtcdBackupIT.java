package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.backup.BackupRecord;
import dev.bosun.common.backup.BackupStoreSpec;
import dev.bosun.common.backup.S3BackupStore;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.common.meta.SecretValues;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.LogCapture;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.S3TestServer;
import dev.bosun.common.tls.TrustedCa;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.restore.FetchSnapshot;
import dev.bosun.etcd.restore.RestoreSecrets;
import dev.bosun.etcd.restore.SnapshotRoute;
import dev.bosun.etcd.testing.ClusterObjects;
import dev.bosun.etcd.testing.EtcdBackups;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.etcd.testing.RestoredEtcd;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import dev.bosun.etcd.v1alpha1.EtcdBackupSpec;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Bootstrap;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.DisasterRecovery;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.bootstrap.FromBackup;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Snapshots of a real etcd cluster, through the operator, into the operator's backup volume and
 * into a real S3-compatible server, restored with etcdctl and checked key by key.
 */
@ExtendWith(ControlPlaneExtension.class)
class EtcdBackupIT {

  static RunningOperator operator;
  static S3TestServer s3;

  /** The recovery boundary's row: target/drill-results/etcd-recovery-boundaries.md. */
  static final dev.bosun.common.testing.drill.DrillTable BOUNDARIES =
      BoundaryRows.table("etcd disaster recovery, operator killed at a boundary");

  /** The restore boundaries' rows: target/drill-results/etcd-restore-boundaries.md. */
  static final dev.bosun.common.testing.drill.DrillTable RESTORES =
      BoundaryRows.table("etcd restore from a backup, operator killed at a boundary");

  String ns;
  ProcessKubelet kubelet;

  @BeforeAll
  static void start() throws Exception {
    operator = EtcdUnderTest.operator().start();
    s3 = S3TestServer.start(Files.createTempDirectory("s3"), "etcd-backups");
  }

  @AfterAll
  static void stop() {
    BoundaryRows.finish(BOUNDARIES, "etcd-recovery-boundaries.md");
    BoundaryRows.finish(RESTORES, "etcd-restore-boundaries.md");
    s3.close();
    operator.close();
  }

  @BeforeEach
  void namespace() throws Exception {
    ns =
        Crds.namespace(
            operator.client,
            "etcdbak-" + UUID.randomUUID().toString().substring(0, 6),
            Map.of(),
            Map.of());
    // The test's own client: an ApiCut of the operator must not take the kubelet with it.
    kubelet =
        new ProcessKubelet(
                operator.testClient, ns, Files.createTempDirectory("process-kubelet-" + ns))
            .start();
  }

  @AfterEach
  void cleanup() {
    kubelet.close();
    operator.client.namespaces().withName(ns).delete();
  }

  /** A one-member cluster holding {@code count} keys. */
  Map<String, String> clusterWithData(String name, int count) throws Exception {
    return clusterWithData(name, 1, count);
  }

  Map<String, String> clusterWithData(String name, int size, int count) throws Exception {
    EtcdClusters.create(operator.client, ns, name, size, "3.4.23");
    EtcdClusters.await(
        operator.client, ns, name, Duration.ofSeconds(90), "Ready", EtcdClusters.readyWith(size));
    URI endpoint =
        EtcdUnderTest.ADDRESSING.clientUrl(new ClusterRef(ns, name, false, false), name + "-0");
    Map<String, String> data = new TreeMap<>();
    try (Client c = Client.builder().endpoints(endpoint).keepaliveWithoutCalls(false).build()) {
      for (int i = 0; i < count; i++) {
        String key = "data/" + i;
        String value = "value-" + i + "-" + UUID.randomUUID();
        c.getKVClient()
            .put(
                ByteSequence.from(key, StandardCharsets.UTF_8),
                ByteSequence.from(value, StandardCharsets.UTF_8))
            .get(10, TimeUnit.SECONDS);
        data.put(key, value);
      }
    }
    return data;
  }

  EtcdBackup backup(String name, String cluster, BackupStoreSpec store, Integer keep) {
    return EtcdBackups.create(operator.client, ns, name, cluster, store, keep);
  }

  EtcdBackup awaitSucceeded(String name) {
    return EtcdBackups.awaitSucceeded(operator.client, ns, name, Duration.ofSeconds(60));
  }

  @Test
  void aSnapshotOnTheBackupVolumeRestoresEveryKey() throws Exception {
    Map<String, String> data = clusterWithData("vol", 300);
    BackupStoreSpec store = BackupStoreSpec.volume(null);
    EtcdBackup done =
        awaitSucceeded(backup("vol-once", "vol", store, null).getMetadata().getName());

    var last = done.getStatus().getLastBackup();
    assertThat(done.getStatus().getLastRevision()).isGreaterThanOrEqualTo(300L);
    assertThat(last.size()).isPositive();
    assertThat(last.key()).startsWith(ns + "/vol/vol-once/").endsWith(".db");
    Path file = EtcdUnderTest.BACKUP_DIR.resolve(last.key());
    assertThat(file).exists().hasSize(last.size());
    assertThat(done.getStatus().getBackupCount()).isEqualTo(1);
    assertThat(done.getStatus().getBackups())
        .extracting(BackupRecord::key)
        .containsExactly(last.key());
    assertThat(done.getStatus().getNextScheduleTime()).as("one-shot").isNull();
    // The same status as every backup kind: nothing runs once the snapshot is recorded.
    assertThat(done.getStatus().getInProgress()).isNull();
    assertThat(Conditions.find(done.getStatus().getConditions(), "Progressing"))
        .get()
        .extracting(c -> c.getStatus() + "/" + c.getReason() + ": " + c.getMessage())
        .isEqualTo("False/Idle: one-shot backup done");

    try (RestoredEtcd restored = RestoredEtcd.start(file, "127.0.99.1")) {
      assertThat(restored.read("data/")).isEqualTo(data);
    }
  }

  @Test
  void aSnapshotInS3KeepsOnlyTheNewestAndRestoresEveryKey() throws Exception {
    Map<String, String> data = clusterWithData("obj", 200);
    createS3Secret();
    S3BackupStore direct = new S3BackupStore(s3.location(""), s3.credentials());
    // The configured prefix "team/obj" does not start with the namespace: it is put below it.
    String prefix = ns + "/team/obj/obj-nightly/";
    for (String old :
        new String[] {"20200101T000000Z.db", "20200102T000000Z.db", "20200103T000000Z.db"}) {
      direct.write(prefix + old, new ByteArrayInputStream(new byte[] {1, 2, 3}));
    }
    // Another namespace's snapshots under the literal prefix: retention never touches them.
    String outside = "team/obj/obj-nightly/";
    direct.write(outside + "20200101T000000Z.db", new ByteArrayInputStream(new byte[] {1}));

    BackupStoreSpec store =
        BackupStoreSpec.s3(s3.endpoint().toString(), s3.bucket(), "team/obj", "s3-credentials");
    EtcdBackup done =
        awaitSucceeded(backup("obj-nightly", "obj", store, 2).getMetadata().getName());

    assertThat(done.getStatus().getBackupCount()).isEqualTo(2);
    assertThat(direct.list(prefix))
        .extracting(StoredObject::key)
        .as("the two oldest were deleted")
        .hasSize(2)
        .contains(done.getStatus().getLastBackup().key())
        .doesNotContain(prefix + "20200101T000000Z.db", prefix + "20200102T000000Z.db");
    assertThat(done.getStatus().getLastBackup().key()).startsWith(ns + "/");
    assertThat(direct.list(outside))
        .extracting(StoredObject::key)
        .as("nothing outside the namespace is deleted")
        .contains(outside + "20200101T000000Z.db");
    assertThat(done.getStatus().getLastBackup().location()).startsWith("s3://");

    Path copy = Files.createTempFile("from-s3", ".db");
    try (InputStream in = direct.read(done.getStatus().getLastBackup().key())) {
      Files.copy(in, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    try (RestoredEtcd restored = RestoredEtcd.start(copy, "127.0.99.2")) {
      assertThat(restored.read("data/")).isEqualTo(data);
    }
  }

  @Test
  void aNewClusterBootstrapsFromTheNewestSnapshotAndGrowsWithTheData() throws Exception {
    Map<String, String> data = clusterWithData("src", 150);
    createS3Secret();
    BackupStoreSpec store =
        BackupStoreSpec.s3(s3.endpoint().toString(), s3.bucket(), null, "s3-credentials");
    EtcdBackup done =
        awaitSucceeded(backup("src-backup", "src", store, null).getMetadata().getName());

    EtcdCluster ready = restoredCluster("dst", 3, "src-backup");
    assertThat(ready.getStatus().getRestoredFrom())
        .isEqualTo("s3://" + s3.bucket() + "/" + done.getStatus().getLastBackup().key());
    // The members that joined later got the data from the restored one: read from the newest.
    assertThat(readData("dst", "dst-2")).isEqualTo(data);

    // The same restore with the operator killed between the first member's volume and its Pod,
    // and at the status write after its Pod: a fresh operator restores it all the same.
    String pods = "POST /api/v1/namespaces/" + ns + "/pods";
    restoreKilledAt(
        "dst-pod",
        pods::equals,
        "restore: between the first member's volume and its Pod (no cluster ID yet)",
        () -> {
          assertThat(volume("data-dst-pod-0")).as("the first member's volume").isNotNull();
          assertThat(operator.client.pods().inNamespace(ns).withName("dst-pod-0").get())
              .as("the first member's Pod")
              .isNull();
        },
        data,
        done);
    boolean[] created = {false};
    restoreKilledAt(
        "dst-status",
        line -> {
          created[0] |= line.equals(pods);
          return created[0]
              && line.startsWith("PATCH /apis/")
              && line.endsWith("/namespaces/" + ns + "/etcdclusters/dst-status/status");
        },
        "restore: at the status write after the first member's Pod (cluster ID not recorded)",
        () ->
            assertThat(operator.client.pods().inNamespace(ns).withName("dst-status-0").get())
                .as("the restored first member's Pod")
                .isNotNull(),
        data,
        done);
  }

  /**
   * A one-member cluster bootstrapped from src-backup with the operator cut off the API server at
   * {@code request} (before it is sent); {@code left} checks what it left, and a fresh operator
   * must restore the cluster from the snapshot with every key, having destroyed nothing.
   */
  void restoreKilledAt(
      String name,
      java.util.function.Predicate<String> request,
      String row,
      Runnable left,
      Map<String, String> data,
      EtcdBackup done)
      throws Exception {
    int writes = operator.writes.count();
    BoundaryRows.Kill kill =
        BoundaryRows.kill(
            operator,
            true,
            request,
            () -> operator.testClient.resource(restoredSpec(name, 1, "src-backup")).create(),
            cutAt -> left.run());
    EtcdCluster ready =
        EtcdClusters.await(
            operator.client, ns, name, Duration.ofSeconds(120), "Ready", EtcdClusters.readyWith(1));
    double seconds = (System.nanoTime() - kill.restarted()) / 1e9;
    Map<String, String> read = readData(name, name + "-0");
    List<String> deletes = deletesSince(writes, null);
    RESTORES.row(
        row,
        data.size(),
        BoundaryRows.lost(data, read),
        deletes.size(),
        String.format("%.1f", seconds));
    assertThat(read).as("every key of the snapshot").isEqualTo(data);
    assertThat(deletes).as("Pods or volumes deleted").isEmpty();
    assertThat(ClusterObjects.eventReasons(operator.client, ns, name))
        .contains("Restoring")
        .doesNotContain("RecreatingPods");
    assertThat(ready.getStatus().getRestoredFrom())
        .as("the snapshot the cluster was restored from")
        .isEqualTo("s3://" + s3.bucket() + "/" + done.getStatus().getLastBackup().key());
  }

  /** A new cluster bootstrapped from {@code backup}, once Ready with {@code size} members. */
  EtcdCluster restoredCluster(String name, int size, String backup) {
    operator.client.resource(restoredSpec(name, size, backup)).create();
    return EtcdClusters.await(
        operator.client, ns, name, Duration.ofSeconds(120), "Ready", EtcdClusters.readyWith(size));
  }

  /** A new cluster of {@code size} members to be bootstrapped from {@code backup}. */
  EtcdCluster restoredSpec(String name, int size, String backup) {
    return EtcdBackups.restoredSpec(ns, name, size, "3.4.23", backup);
  }

  /** Every key under {@code data/} as {@code member} of {@code cluster} serves it. */
  Map<String, String> readData(String cluster, String member) throws Exception {
    URI endpoint =
        EtcdUnderTest.ADDRESSING.clientUrl(new ClusterRef(ns, cluster, false, false), member);
    try (Client c = Client.builder().endpoints(endpoint).keepaliveWithoutCalls(false).build()) {
      var all =
          c.getKVClient()
              .get(
                  ByteSequence.from("data/", StandardCharsets.UTF_8),
                  io.etcd.jetcd.options.GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS);
      Map<String, String> read = new TreeMap<>();
      all.getKvs()
          .forEach(
              kv ->
                  read.put(
                      kv.getKey().toString(StandardCharsets.UTF_8),
                      kv.getValue().toString(StandardCharsets.UTF_8)));
      return read;
    }
  }

  @Test
  void aNewClusterBootstrapsFromAVolumeSnapshotServedOverTlsWithTheTokenInNoUrlSpecOrLog()
      throws Exception {
    Map<String, String> data = clusterWithData("vsrc", 120);
    BackupStoreSpec store = BackupStoreSpec.volume(null);
    EtcdBackup done =
        awaitSucceeded(backup("vsrc-backup", "vsrc", store, null).getMetadata().getName());
    String key = done.getStatus().getLastBackup().key();

    // The fetch init container (run by the process kubelet) got the snapshot from the operator's
    // HTTPS port with the token of the cluster's restore Secret; everything the operator logged
    // meanwhile is captured.
    EtcdCluster ready;
    List<String> logged;
    try (LogCapture logs = LogCapture.start()) {
      ready = restoredCluster("vdst", 1, "vsrc-backup");
      logged = logs.lines();
    }
    assertThat(ready.getStatus().getRestoredFrom()).isEqualTo("volume:" + key);
    assertThat(ClusterObjects.events(operator.client, ns, "vdst"))
        .extracting(io.fabric8.kubernetes.api.model.Event::getMessage)
        .anySatisfy(m -> assertThat(m).contains("starts from snapshot volume:" + key));
    assertThat(readData("vdst", "vdst-0")).isEqualTo(data);

    // The Secret: owned by the cluster, granting that one snapshot to that one token, with the
    // operator's CA.
    var secret = operator.client.secrets().inNamespace(ns).withName("vdst-restore").get();
    assertThat(secret.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo("vdst"));
    assertThat(RestoreSecrets.key(secret)).contains(key);
    String token = SecretValues.value(secret, RestoreSecrets.TOKEN).orElseThrow();
    String ca = SecretValues.value(secret, RestoreSecrets.CA).orElseThrow();
    assertThat(ca)
        .isEqualTo(
            SecretValues.value(
                    operator
                        .client
                        .secrets()
                        .inNamespace(EtcdUnderTest.OPERATOR_NAMESPACE)
                        .withName(EtcdUnderTest.TLS_SECRET)
                        .get(),
                    "ca.crt")
                .orElseThrow());

    // The token is in no URL, no command line, no environment value of the Pod, no line the
    // operator logged and no line the fetch container printed.
    var pod = operator.client.pods().inNamespace(ns).withName("vdst-0").get();
    var fetch = pod.getSpec().getInitContainers().get(0);
    URI url = URI.create(env(fetch, FetchSnapshot.URL));
    assertThat(url.getScheme()).isEqualTo("https");
    List<String> spec = new ArrayList<>();
    for (var c : pod.getSpec().getInitContainers()) {
      spec.addAll(c.getCommand());
      spec.addAll(c.getArgs());
      c.getEnv().forEach(e -> spec.add(e.getName() + "=" + e.getValue()));
    }
    assertThat(spec).isNotEmpty().noneSatisfy(s -> assertThat(s).contains(token));
    assertThat(logged)
        .as("the capture saw the route send the snapshot")
        .anySatisfy(l -> assertThat(l).contains("sent volume:" + key));
    assertThat(logged).noneSatisfy(l -> assertThat(l).contains(token));
    String fetchLog = kubelet.initContainerLog("vdst-0", "fetch-snapshot");
    assertThat(fetchLog).contains("fetched ").doesNotContain(token);

    // Over TLS, trusting only the CA from the Secret: the token fetches the snapshot, a wrong one
    // is refused, and a cluster that is not being restored is unknown.
    java.net.http.HttpClient http =
        java.net.http.HttpClient.newBuilder().sslContext(TrustedCa.sslContext(ca)).build();
    var good =
        http.send(
            java.net.http.HttpRequest.newBuilder(url)
                .header("Authorization", "Bearer " + token)
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofByteArray());
    assertThat(good.statusCode()).isEqualTo(200);
    assertThat(good.body()).isEqualTo(Files.readAllBytes(EtcdUnderTest.BACKUP_DIR.resolve(key)));
    var bad =
        http.send(
            java.net.http.HttpRequest.newBuilder(url)
                .header("Authorization", "Bearer " + token.substring(1))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.discarding());
    assertThat(bad.statusCode()).isEqualTo(403);
    var source =
        http.send(
            java.net.http.HttpRequest.newBuilder(
                    URI.create(url.toString().replace("/vdst", "/vsrc")))
                .header("Authorization", "Bearer " + token)
                .build(),
            java.net.http.HttpResponse.BodyHandlers.discarding());
    assertThat(source.statusCode()).as("a cluster that is not being restored").isEqualTo(404);
    // The plain HTTP metrics port serves no snapshot, whatever the token.
    var plain =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        SnapshotRoute.url(operator.operatorUrl(), ns, "vdst"))
                    .header("Authorization", "Bearer " + token)
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.discarding());
    assertThat(plain.statusCode()).isEqualTo(404);

    // A second cluster restored from the same backup, whose restore Secret's name a tenant's own
    // Secret already holds: refused, never overwritten.
    operator
        .client
        .secrets()
        .inNamespace(ns)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("fdst-restore")
                .withNamespace(ns)
                .endMetadata()
                .addToStringData("token", "the tenant's own")
                .build())
        .create();

    operator.client.resource(restoredSpec("fdst", 1, "vsrc-backup")).create();

    EtcdCluster refused =
        EtcdClusters.await(
            operator.client,
            ns,
            "fdst",
            Duration.ofSeconds(60),
            "a ResourceConflict condition",
            c ->
                c.getStatus() != null
                    && c.getStatus().getConditions() != null
                    && c.getStatus().getConditions().stream()
                        .anyMatch(k -> "ResourceConflict".equals(k.getReason())));
    assertThat(refused.getStatus().getConditions())
        .filteredOn(k -> "ResourceConflict".equals(k.getReason()))
        .first()
        .satisfies(k -> assertThat(k.getMessage()).contains("Secret fdst-restore already exists"));
    var tenants = operator.client.secrets().inNamespace(ns).withName("fdst-restore").get();
    assertThat(SecretValues.value(tenants, "token")).contains("the tenant's own");
    assertThat(tenants.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(operator.client.pods().inNamespace(ns).withName("fdst-0").get()).isNull();
  }

  private static String env(io.fabric8.kubernetes.api.model.Container container, String name) {
    return container.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .findFirst()
        .orElseThrow()
        .getValue();
  }

  @Test
  void withTheOptInAClusterWithoutQuorumIsRebuiltFromItsNewestSnapshotKeepingTheOldVolumes()
      throws Exception {
    Map<String, String> data = clusterWithData("dr", 3, 100);
    EtcdBackup done = snapshotWithRecoveryOptIn("dr", 30);

    // Frozen members look to the operator exactly like a partition: Kubernetes says they run, so
    // this is no evidence of a quorum loss, and for longer than afterSeconds nothing is touched.
    java.util.List<String> pods = podUids();
    kubelet.process("dr-1").orElseThrow().pause();
    kubelet.process("dr-2").orElseThrow().pause();
    try {
      org.awaitility.Awaitility.await("no recovery while the operator merely cannot see them")
          .during(Duration.ofSeconds(40))
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                EtcdCluster c = EtcdClusters.get(operator.client, ns, "dr");
                var quorum = EtcdClusters.conditionOf(c, "QuorumLost");
                return podUids().equals(pods)
                    && retainedVolumes().isEmpty()
                    && c.getStatus().getRecoveringFrom() == null
                    && c.getStatus().getQuorumLostSince() == null
                    && quorum != null
                    && !"True".equals(quorum.getStatus());
              });
      EtcdCluster unseen = EtcdClusters.get(operator.client, ns, "dr");
      assertThat(EtcdClusters.conditionOf(unseen, "QuorumLost").getReason())
          .isEqualTo("MembersUnreachable");
      assertThat(EtcdClusters.conditionOf(unseen, "DisasterRecovery").getReason())
          .isEqualTo("QuorumNotConfirmedLost");
    } finally {
      kubelet.process("dr-1").ifPresent(p -> p.resume());
      kubelet.process("dr-2").ifPresent(p -> p.resume());
    }
    EtcdClusters.await(
        operator.client, ns, "dr", Duration.ofSeconds(60), "Ready", EtcdClusters.readyWith(3));

    // Killed, and Kubernetes reports their containers terminated: a quorum loss on evidence.
    kubelet.killContainer("dr-1");
    kubelet.killContainer("dr-2");
    EtcdCluster waiting =
        EtcdClusters.await(
            operator.client,
            ns,
            "dr",
            Duration.ofSeconds(60),
            "waiting for afterSeconds",
            c ->
                EtcdClusters.conditionOf(c, "DisasterRecovery") != null
                    && "WaitingForAfterSeconds"
                        .equals(EtcdClusters.conditionOf(c, "DisasterRecovery").getReason()));
    java.time.Instant lostSince = waiting.getStatus().getQuorumLostSince().toInstant();
    EtcdCluster rebuilt =
        EtcdClusters.await(
            operator.client,
            ns,
            "dr",
            Duration.ofSeconds(180),
            "rebuilt from the snapshot",
            c ->
                EtcdClusters.readyWith(3).test(c)
                    && c.getStatus().getRestoredFrom() != null
                    && !c.getStatus().getMembers().get(0).getName().equals("dr-0"));
    assertThat(rebuilt.getStatus().getRestoredFrom())
        .endsWith(done.getStatus().getLastBackup().key());
    var recoveryEvents = ClusterObjects.events(operator.client, ns, "dr");
    assertThat(recoveryEvents)
        .extracting(io.fabric8.kubernetes.api.model.Event::getReason)
        .contains(
            "MembersUnreachable",
            "QuorumLost",
            "WaitingForAfterSeconds",
            "Recovering",
            "VolumesRetained",
            "OldMembersStopped",
            "RestoringFirstMember",
            "Restoring");
    var started =
        recoveryEvents.stream()
            .filter(e -> "OldMembersStopped".equals(e.getReason()))
            .findFirst()
            .orElseThrow();
    assertThat(java.time.Instant.parse(started.getFirstTimestamp()))
        .as("the recovery waited afterSeconds after the loss was confirmed")
        .isAfterOrEqualTo(lostSince.plusSeconds(30));
    assertThat(rebuilt.getStatus().getMembers())
        .extracting(m -> m.getName())
        .containsExactly("dr-3", "dr-4", "dr-5");
    // The old volumes are kept, marked, and never reused.
    assertThat(
            operator
                .client
                .persistentVolumeClaims()
                .inNamespace(ns)
                .withLabel(dev.bosun.etcd.EtcdOperator.RETAINED_LABEL, "true")
                .list()
                .getItems())
        .extracting(v -> v.getMetadata().getName())
        .containsExactlyInAnyOrder("data-dr-0", "data-dr-1", "data-dr-2");
    assertServesEveryKey("dr", "dr-5", data);
  }

  /** An S3 snapshot of {@code cluster}, then disaster recovery opted in with that backup. */
  EtcdBackup snapshotWithRecoveryOptIn(String cluster, Integer afterSeconds) {
    createS3Secret();
    BackupStoreSpec store =
        BackupStoreSpec.s3(s3.endpoint().toString(), s3.bucket(), null, "s3-credentials");
    EtcdBackup done =
        awaitSucceeded(backup(cluster + "-backup", cluster, store, null).getMetadata().getName());
    EtcdClusters.edit(
        operator.client,
        ns,
        cluster,
        s -> {
          DisasterRecovery dr = new DisasterRecovery();
          dr.setRestoreFromBackup(cluster + "-backup");
          dr.setAfterSeconds(afterSeconds);
          s.setDisasterRecovery(dr);
        });
    return done;
  }

  /** The member serves exactly {@code data} under {@code data/}. */
  void assertServesEveryKey(String cluster, String member, Map<String, String> data)
      throws Exception {
    assertThat(readAll(cluster, member)).isEqualTo(data);
  }

  /** Every key under data/ as the member serves it. */
  Map<String, String> readAll(String cluster, String member) throws Exception {
    URI endpoint =
        EtcdUnderTest.ADDRESSING.clientUrl(new ClusterRef(ns, cluster, false, false), member);
    try (Client c = Client.builder().endpoints(endpoint).keepaliveWithoutCalls(false).build()) {
      var all =
          c.getKVClient()
              .get(
                  ByteSequence.from("data/", StandardCharsets.UTF_8),
                  io.etcd.jetcd.options.GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS);
      Map<String, String> read = new TreeMap<>();
      all.getKvs()
          .forEach(
              kv ->
                  read.put(
                      kv.getKey().toString(StandardCharsets.UTF_8),
                      kv.getValue().toString(StandardCharsets.UTF_8)));
      return read;
    }
  }

  /** Where a disaster recovery is interrupted after its intent, and what Kubernetes holds then. */
  enum RecoveryBoundary {
    /** The old member's volume is labelled retained; its Pod still runs. */
    VOLUMES_RETAINED(
        true, "DELETE", "/pods/%s", "after the old volumes are retained (Pods running)"),
    /** ... and its Pod is deleted; the old cluster's ID is still recorded. */
    PODS_STOPPED(
        false, "DELETE", "/pods/%s", "after the old Pods are deleted (cluster not forgotten)"),
    /** The old cluster is forgotten (no cluster ID); nothing of the new one exists. */
    OLD_CLUSTER_FORGOTTEN(
        true,
        "POST",
        "/persistentvolumeclaims",
        "after the old cluster is forgotten (restore next)"),
    /** The restored first member's volume exists; its Pod was never created. */
    RESTORE_VOLUME_CREATED(
        true, "POST", "/pods", "between the restored first member's volume and its Pod"),
    /** Its Pod is created; the status write that follows (its snapshot, its cluster) is not. */
    RESTORE_POD_CREATED(
        true, "PATCH", "/status", "at the status write after the restored member's Pod");

    final boolean before;
    final String method;
    final String path;
    final String row;

    RecoveryBoundary(boolean before, String method, String path, String row) {
      this.before = before;
      this.method = method;
      this.path = path;
      this.row = row;
    }

    /** The operator's request the cut happens at, {@code old} the member being replaced. */
    java.util.function.Predicate<String> request(String ns, String old) {
      if (this == RESTORE_POD_CREATED) {
        String pod = "POST /api/v1/namespaces/" + ns + "/pods";
        boolean[] created = {false};
        return request -> {
          created[0] |= request.equals(pod);
          return created[0]
              && request.startsWith("PATCH /apis/")
              && request.endsWith("/namespaces/" + ns + "/etcdclusters/phoenix/status");
        };
      }
      String line =
          method + " /api/v1/namespaces/" + ns + (path.contains("%s") ? path.formatted(old) : path);
      return line::equals;
    }
  }

  @Test
  void aRecoveryWhoseOperatorDiedAtEachBoundaryResumesAndRestoresEveryKey() throws Exception {
    Map<String, String> data = clusterWithData("phoenix", 1, 50);
    EtcdBackup done = snapshotWithRecoveryOptIn("phoenix", null);
    String from = "s3://" + s3.bucket() + "/" + done.getStatus().getLastBackup().key();

    // The operator dies at the first boundary: the recovery is recorded, nothing is stopped yet.
    // (Its status is written here under the operator's own field manager, as it would have.)
    int writes = operator.writes.count();
    operator.stop();
    try {
      recordRecovery("phoenix", from);
    } finally {
      operator.start();
    }
    long restarted = System.nanoTime();

    EtcdCluster rebuilt = awaitRestored("phoenix", "phoenix-1");
    double seconds = (System.nanoTime() - restarted) / 1e9;
    Map<String, String> read = readAll("phoenix", "phoenix-1");
    List<String> reasons = ClusterObjects.eventReasons(operator.client, ns, "phoenix");
    BOUNDARIES.row(
        "right after recording the recovery (recoveringFrom written, nothing stopped)",
        data.size(),
        BoundaryRows.lost(data, read),
        deletesSince(writes, null).size(),
        String.format("%.1f", seconds));
    assertThat(rebuilt.getStatus().getRestoredFrom())
        .endsWith(done.getStatus().getLastBackup().key());
    assertThat(retainedVolumes()).containsExactly("data-phoenix-0");
    assertThat(reasons).contains("VolumesRetained", "OldMembersStopped", "Restoring");
    assertThat(read).as("every key, restored").isEqualTo(data);

    // The later boundaries, one recovery each on the same cluster: each restored cluster is
    // recovered again from the same snapshot, so every round must end with the snapshot's keys,
    // a new first member, and every volume retained so far still there.
    int member = 1;
    for (RecoveryBoundary boundary : RecoveryBoundary.values()) {
      operatorKilledDuringARecovery(boundary, "phoenix-" + member, from, data);
      member++;
    }
  }

  /**
   * Records a disaster recovery of the one-member cluster phoenix whose member is {@code old}, lets
   * a started operator carry it out until the {@code boundary}, where it is cut off the API server
   * and stopped; then a fresh operator must finish it.
   */
  void operatorKilledDuringARecovery(
      RecoveryBoundary boundary, String old, String from, Map<String, String> data)
      throws Exception {
    String next = "phoenix-" + (Integer.parseInt(old.substring(old.indexOf('-') + 1)) + 1);
    List<String> retainedBefore = retainedVolumes();
    int writes = operator.writes.count();
    operator.stop();
    recordRecovery("phoenix", from);
    BoundaryRows.Kill kill =
        BoundaryRows.kill(
            operator,
            boundary.before,
            boundary.request(ns, old),
            operator::start,
            cutAt -> assertLeftAt(boundary, old, next));
    long restarted = kill.restarted();
    EtcdCluster rebuilt = awaitRestored("phoenix", next);
    double seconds = (System.nanoTime() - restarted) / 1e9;
    Map<String, String> read = readAll("phoenix", next);
    // A request cut before it was sent never reached the API server: it destroyed nothing.
    List<String> deletes = deletesSince(writes, boundary.before ? kill.cutAt() : null);
    long destructive = deletes.size();
    BOUNDARIES.row(
        boundary.row,
        data.size(),
        BoundaryRows.lost(data, read),
        destructive,
        String.format("%.1f", seconds));
    assertThat(rebuilt.getStatus().getRestoredFrom()).isEqualTo(from);
    assertThat(retainedVolumes())
        .as("every volume retained so far, and the old member's")
        .containsAll(retainedBefore)
        .contains("data-" + old);
    assertThat(read).as("every key of the snapshot, restored").isEqualTo(data);
    assertThat(deletes)
        .as("the old Pod deleted once (the recovery asked for), nothing else destroyed")
        .containsExactly("DELETE /api/v1/namespaces/" + ns + "/pods/" + old);
    assertThat(
            operator.client.pods().inNamespace(ns).list().getItems().stream()
                .map(p -> p.getMetadata().getName()))
        .as("member Pods")
        .containsExactly(next);
  }

  /** What Kubernetes and the status hold when the operator was killed at {@code boundary}. */
  void assertLeftAt(RecoveryBoundary boundary, String old, String next) {
    var status = EtcdClusters.get(operator.client, ns, "phoenix").getStatus();
    var oldPod = operator.client.pods().inNamespace(ns).withName(old).get();
    assertThat(status.getRecoveringFrom()).as("the recovery's intent").isNotNull();
    assertThat(retainedVolumes()).as("retained at %s", boundary).contains("data-" + old);
    switch (boundary) {
      case VOLUMES_RETAINED -> {
        assertThat(oldPod).as("the old Pod").isNotNull();
        assertThat(oldPod.getMetadata().getDeletionTimestamp()).isNull();
      }
      case PODS_STOPPED -> {
        assertThat(oldPod == null || oldPod.getMetadata().getDeletionTimestamp() != null)
            .as("the old Pod is deleted")
            .isTrue();
        assertThat(status.getClusterId()).as("the old cluster, not yet forgotten").isNotNull();
      }
      case OLD_CLUSTER_FORGOTTEN -> {
        assertThat(status.getClusterId()).as("the old cluster is forgotten").isNull();
        assertThat(volume("data-" + next)).as("the restored member's volume").isNull();
      }
      case RESTORE_VOLUME_CREATED -> {
        assertThat(status.getClusterId()).isNull();
        assertThat(volume("data-" + next)).as("the restored member's volume").isNotNull();
        assertThat(operator.client.pods().inNamespace(ns).withName(next).get())
            .as("the restored member's Pod")
            .isNull();
      }
      case RESTORE_POD_CREATED -> {
        assertThat(status.getClusterId()).isNull();
        assertThat(operator.client.pods().inNamespace(ns).withName(next).get())
            .as("the restored member's Pod")
            .isNotNull();
      }
    }
  }

  io.fabric8.kubernetes.api.model.PersistentVolumeClaim volume(String name) {
    return operator.client.persistentVolumeClaims().inNamespace(ns).withName(name).get();
  }

  EtcdCluster awaitRestored(String cluster, String member) {
    return EtcdClusters.await(
        operator.client,
        ns,
        cluster,
        Duration.ofSeconds(120),
        "resumed and restored as " + member,
        c ->
            EtcdClusters.readyWith(1).test(c)
                && c.getStatus().getRecoveringFrom() == null
                && c.getStatus().getMembers().get(0).getName().equals(member));
  }

  /**
   * Writes {@code recoveringFrom} as the operator does when it starts a recovery (under its own
   * field manager); the operator must be stopped, so that its cached status cannot overwrite it.
   */
  void recordRecovery(String cluster, String from) {
    EtcdCluster recorded = EtcdClusters.get(operator.client, ns, cluster);
    recorded.getStatus().setRecoveringFrom(from);
    EtcdCluster body = new EtcdCluster();
    body.setMetadata(new ObjectMetaBuilder().withName(cluster).withNamespace(ns).build());
    body.setSpec(null);
    body.setStatus(recorded.getStatus());
    operator
        .testClient
        .resource(body)
        .subresource("status")
        .patch(
            new io.fabric8.kubernetes.client.dsl.base.PatchContext.Builder()
                .withPatchType(io.fabric8.kubernetes.client.dsl.base.PatchType.SERVER_SIDE_APPLY)
                .withFieldManager(dev.bosun.etcd.EtcdOperator.NAME)
                .withForce(true)
                .build());
  }

  /**
   * The Pods and volumes the operator deleted in this namespace since its {@code from}th write:
   * every destructive API request it sent ({@code notSent}, a request cut before it was sent, is
   * left out once).
   */
  List<String> deletesSince(int from, String notSent) {
    List<String> deletes =
        new ArrayList<>(
            operator.writes.since(from).stream()
                .filter(w -> w.startsWith("DELETE /api/v1/namespaces/" + ns + "/"))
                .filter(w -> w.contains("/pods/") || w.contains("/persistentvolumeclaims/"))
                .toList());
    if (notSent != null) {
      deletes.remove(notSent);
    }
    return deletes;
  }

  java.util.List<String> podUids() {
    return ClusterObjects.podUids(operator.client, ns);
  }

  java.util.List<String> retainedVolumes() {
    return ClusterObjects.retainedVolumes(operator.client, ns);
  }

  @Test
  void aClusterToRestoreFromAMissingBackupWaitsAndStartsNothing() {
    EtcdCluster c = new EtcdCluster();
    c.setMetadata(new ObjectMetaBuilder().withName("orphan").withNamespace(ns).build());
    EtcdClusterSpec spec = new EtcdClusterSpec();
    spec.setVersion("3.4.23");
    Bootstrap bootstrap = new Bootstrap();
    FromBackup from = new FromBackup();
    from.setBackupName("no-such-backup");
    bootstrap.setFromBackup(from);
    spec.setBootstrap(bootstrap);
    c.setSpec(spec);
    operator.client.resource(c).create();
    EtcdCluster waiting =
        EtcdClusters.await(
            operator.client,
            ns,
            "orphan",
            Duration.ofSeconds(30),
            "WaitingForBackup",
            x ->
                x.getStatus() != null
                    && Conditions.find(x.getStatus().getConditions(), "Ready")
                        .map(r -> "WaitingForBackup".equals(r.getReason()))
                        .orElse(false));
    assertThat(
            Conditions.find(waiting.getStatus().getConditions(), "Ready")
                .orElseThrow()
                .getMessage())
        .contains("no-such-backup");
    assertThat(operator.client.pods().inNamespace(ns).list().getItems()).isEmpty();
  }

  void createS3Secret() {
    Crds.secret(
        operator.client,
        ns,
        "s3-credentials",
        Map.of(
            "accessKeyId", s3.credentials().accessKeyId(),
            "secretAccessKey", s3.credentials().secretAccessKey()));
  }

  @Test
  void aBadScheduleIsInvalidSpecAndNothingIsTaken() {
    BackupStoreSpec store = BackupStoreSpec.volume(null);
    EtcdBackup b = new EtcdBackup();
    b.setMetadata(new ObjectMetaBuilder().withName("bad-cron").withNamespace(ns).build());
    EtcdBackupSpec spec = new EtcdBackupSpec();
    spec.setClusterName("none");
    spec.setStore(store);
    spec.setSchedule("0 25 * * *");
    b.setSpec(spec);
    operator.client.resource(b).create();
    EtcdBackup refused =
        org.awaitility.Awaitility.await("InvalidSpec")
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    operator
                        .client
                        .resources(EtcdBackup.class)
                        .inNamespace(ns)
                        .withName("bad-cron")
                        .get(),
                x ->
                    x.getStatus() != null
                        && Conditions.find(x.getStatus().getConditions(), "Ready")
                            .map(c -> "InvalidSpec".equals(c.getReason()))
                            .orElse(false));
    assertThat(
            Conditions.find(refused.getStatus().getConditions(), "Ready")
                .orElseThrow()
                .getMessage())
        .contains("hour");
    assertThat(refused.getStatus().getLastBackup()).isNull();
  }
}
