package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.drill.AckedWriter;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.testing.ClusterObjects;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdCut;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.etcd.testing.TestCertificates;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.EtcdClusterSpec;
import dev.bosun.etcd.v1alpha1.etcdclusterspec.Metrics;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator on the real control plane, its member Pods run as real etcd processes by the {@link
 * ProcessKubelet}: what the operator does through Kubernetes and etcd is what happens.
 */
@ExtendWith(ControlPlaneExtension.class)
class EtcdClusterIT {

  static final String VERSION = "3.4.23";
  static final Duration CONVERGE = Duration.ofSeconds(120);
  static RunningOperator operator;
  String ns;
  ProcessKubelet kubelet;

  @BeforeAll
  static void startOperator() {
    operator = EtcdUnderTest.operator().start();
  }

  /** The bootstrap boundary's row: target/drill-results/etcd-bootstrap-boundaries.md. */
  static final dev.bosun.common.testing.drill.DrillTable BOUNDARIES =
      BoundaryRows.table("etcd bootstrap and scale-out, operator killed at a boundary");

  @AfterAll
  static void stopOperator() {
    BoundaryRows.finish(BOUNDARIES, "etcd-bootstrap-boundaries.md");
    operator.close();
  }

  @BeforeEach
  void namespace() throws Exception {
    ns =
        Crds.namespace(
            operator.client,
            "etcd-" + UUID.randomUUID().toString().substring(0, 6),
            Map.of(),
            Map.of());
    Path root = Files.createTempDirectory("process-kubelet-" + ns);
    // The test's own client: an ApiCut of the operator must not take the kubelet with it.
    kubelet = new ProcessKubelet(operator.testClient, ns, root).start();
  }

  @AfterEach
  void cleanup() {
    kubelet.close();
    operator.client.namespaces().withName(ns).delete();
  }

  EtcdCluster awaitReady(String name, int size) {
    return EtcdClusters.await(
        operator.client, ns, name, CONVERGE, "Ready with " + size, EtcdClusters.readyWith(size));
  }

  URI endpoint(String cluster, String member) {
    return EtcdUnderTest.ADDRESSING.clientUrl(new ClusterRef(ns, cluster, false, false), member);
  }

  Map<String, String> memberIds(EtcdCluster c) {
    return c.getStatus().getMembers().stream()
        .collect(Collectors.toMap(Members::getName, Members::getId));
  }

  List<String> podNames() {
    return operator
        .client
        .pods()
        .inNamespace(ns)
        .withLabel(EtcdOperator.MEMBER_LABEL)
        .list()
        .getItems()
        .stream()
        .map(p -> p.getMetadata().getName())
        .sorted()
        .toList();
  }

  List<String> volumeNames() {
    return operator.client.persistentVolumeClaims().inNamespace(ns).list().getItems().stream()
        .map(p -> p.getMetadata().getName())
        .sorted()
        .toList();
  }

  List<String> eventReasons(String cluster) {
    return ClusterObjects.eventReasons(operator.client, ns, cluster);
  }

  @Test
  void aNewClusterGetsItsMembersServicesAndBudgetThenStaysIdle() {
    EtcdClusters.create(operator.client, ns, "alpha", 3, VERSION);
    EtcdCluster ready = awaitReady("alpha", 3);

    assertThat(ready.getStatus().getLeader()).startsWith("alpha-");
    assertThat(ready.getStatus().getVersion()).isEqualTo(VERSION);
    assertThat(ready.getStatus().getMembers())
        .extracting(Members::getName)
        .containsExactly("alpha-0", "alpha-1", "alpha-2");
    assertThat(ready.getStatus().getMembers())
        .filteredOn(m -> m.getRole() == Members.Role.LEADER)
        .hasSize(1);
    assertThat(ready.getStatus().getMembers())
        .allSatisfy(m -> assertThat(m.getClientURL()).startsWith("http://127.0."));
    assertThat(podNames()).containsExactly("alpha-0", "alpha-1", "alpha-2");
    assertThat(volumeNames()).containsExactly("data-alpha-0", "data-alpha-1", "data-alpha-2");
    // Every member, including the two that joined as learners, is behind the client Service now.
    assertThat(
            operator
                .client
                .pods()
                .inNamespace(ns)
                .withLabel(EtcdOperator.MEMBER_LABEL)
                .list()
                .getItems())
        .allSatisfy(
            p ->
                assertThat(p.getMetadata().getLabels())
                    .containsEntry(EtcdOperator.VOTER_LABEL, "true"));
    Service peer = operator.client.services().inNamespace(ns).withName("alpha-peer").get();
    assertThat(peer.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(peer.getSpec().getPublishNotReadyAddresses()).isTrue();
    Service client = operator.client.services().inNamespace(ns).withName("alpha-client").get();
    assertThat(client.getSpec().getSelector()).containsEntry(EtcdOperator.VOTER_LABEL, "true");
    var pdb =
        operator
            .client
            .policy()
            .v1beta1()
            .podDisruptionBudget()
            .inNamespace(ns)
            .withName("alpha")
            .get();
    assertThat(pdb.getSpec().getMinAvailable().getIntVal()).isEqualTo(2);
    assertThat(pdb.getSpec().getSelector().getMatchLabels())
        .containsEntry(EtcdOperator.VOTER_LABEL, "true");
    // Ready is etcd's own /health, answered by the real member.
    assertThat(kubelet.probeReady("alpha-0")).isTrue();
    assertThat(pdb.getMetadata().getOwnerReferences())
        .extracting(r -> r.getName())
        .containsExactly("alpha");
    assertThat(eventReasons("alpha"))
        .contains("Bootstrapping", "AddingMember", "PromotingMember", "Ready");

    // Idle means idle: health is polled from etcd, nothing is written and nothing is read from
    // the API server (the informers' watches aside).
    operator.writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(30));
    int reconciles = operator.reconciles.count();
    int reads = operator.writes.readCount();
    assertThat(
            operator.writes.writesDuring(EtcdClusterReconciler.HEALTH_INTERVAL.plusSeconds(5), ns))
        .isEmpty();
    assertThat(operator.writes.readsSince(reads, ns)).as("API reads while idle").isEmpty();
    // The health poll reconciles (reads only) once per interval; nothing else wakes it up.
    assertThat(operator.reconciles.count() - reconciles).isBetween(1, 3);
  }

  @Test
  void scalesThreeToFiveToThreeWhileAClientWritesAndLosesNoAcknowledgedWrite() throws Exception {
    EtcdClusters.create(operator.client, ns, "beta", 3, VERSION);
    awaitReady("beta", 3);
    List<URI> stable = IntStream.range(0, 3).mapToObj(i -> endpoint("beta", "beta-" + i)).toList();
    var utf8 = java.nio.charset.StandardCharsets.UTF_8;
    try (io.etcd.jetcd.Client etcd =
            io.etcd.jetcd.Client.builder()
                .endpoints(stable.toArray(URI[]::new))
                .keepaliveWithoutCalls(false)
                .build();
        AckedWriter writer =
            AckedWriter.start(
                "beta-writer",
                seq ->
                    etcd.getKVClient()
                        .put(
                            io.etcd.jetcd.ByteSequence.from("key-" + seq, utf8),
                            io.etcd.jetcd.ByteSequence.from("value-" + seq, utf8))
                        .get(3, java.util.concurrent.TimeUnit.SECONDS),
                Duration.ZERO,
                1_000_000,
                CONVERGE.multipliedBy(4))) {
      await().atMost(Duration.ofSeconds(10)).until(() -> writer.acknowledgedCount() > 20);

      EtcdClusters.edit(operator.client, ns, "beta", s -> s.setSize(5));
      EtcdCluster five = awaitReady("beta", 5);
      assertThat(budget("beta")).as("a quorum of the five voters").isEqualTo(3);
      assertThat(five.getStatus().getMembers())
          .extracting(Members::getName)
          .containsExactly("beta-0", "beta-1", "beta-2", "beta-3", "beta-4");

      EtcdClusters.edit(operator.client, ns, "beta", s -> s.setSize(3));
      EtcdCluster three = awaitReady("beta", 3);
      assertThat(three.getStatus().getMembers())
          .extracting(Members::getName)
          .containsExactly("beta-0", "beta-1", "beta-2");
      await().atMost(Duration.ofSeconds(30)).until(() -> podNames().size() == 3);
      await().atMost(Duration.ofSeconds(30)).until(() -> volumeNames().size() == 3);
      assertThat(podNames()).containsExactly("beta-0", "beta-1", "beta-2");

      long before = writer.acknowledgedCount();
      await().atMost(Duration.ofSeconds(10)).until(() -> writer.acknowledgedCount() > before + 20);
      writer.stop();
      Map<String, String> acked =
          writer.acknowledged().stream()
              .collect(Collectors.toMap(seq -> "key-" + seq, seq -> "value-" + seq));
      Map<String, String> read =
          etcd
              .getKVClient()
              .get(
                  io.etcd.jetcd.ByteSequence.from("key-", utf8),
                  io.etcd.jetcd.options.GetOption.builder().isPrefix(true).build())
              .get(10, java.util.concurrent.TimeUnit.SECONDS)
              .getKvs()
              .stream()
              .collect(
                  Collectors.toMap(
                      kv -> kv.getKey().toString(utf8), kv -> kv.getValue().toString(utf8)));
      assertThat(read).as("every acknowledged write is readable").containsAllEntriesOf(acked);
    }
    assertThat(eventReasons("beta")).contains("RemovingMember", "VolumeDeleted");
  }

  @Test
  void withMetricsEnabledEveryMemberServesThemOnItsOwnPort() throws Exception {
    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(new ObjectMetaBuilder().withName("mu").withNamespace(ns).build());
    cluster.setSpec(new EtcdClusterSpec());
    cluster.getSpec().setSize(2);
    cluster.getSpec().setVersion(VERSION);
    cluster.getSpec().setMetrics(new Metrics());
    cluster.getSpec().getMetrics().setEnabled(true);
    operator.client.resource(cluster).create();
    awaitReady("mu", 2);

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    for (String member : List.of("mu-0", "mu-1")) {
      URI metrics =
          EtcdUnderTest.ADDRESSING
              .listenMetricsUrl(new ClusterRef(ns, "mu", false, false), member, 2381)
              .resolve("/metrics");
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).as("GET %s", metrics).isEqualTo(200);
      assertThat(response.body()).contains("etcd_server_has_leader 1");
    }
    assertThat(operator.client.services().inNamespace(ns).withName("mu-peer").get())
        .satisfies(
            peer ->
                assertThat(peer.getSpec().getPorts())
                    .anyMatch(p -> p.getName().equals("metrics") && p.getPort() == 2381));
    // The extra Service port is not re-applied round after round: idle stays idle.
    operator.writes.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(30));
    int reads = operator.writes.readCount();
    assertThat(
            operator.writes.writesDuring(EtcdClusterReconciler.HEALTH_INTERVAL.plusSeconds(2), ns))
        .isEmpty();
    assertThat(operator.writes.readsSince(reads, ns)).as("API reads while idle").isEmpty();
  }

  @Test
  void aBootstrapKilledBetweenTheVolumeAndThePodStartsItsFirstMemberAgain() throws Exception {
    // Killed right before the first member's Pod is created: its volume exists, no Pod, no cluster
    // ID. Recreated as a member joining peers (the old code), it crash-loops.
    String pods = "POST /api/v1/namespaces/" + ns + "/pods";
    bootstrapKilledAt(
        "kappa",
        1,
        pods::equals,
        "between the first member's volume and its Pod (no cluster ID yet)",
        () -> {
          assertThat(operator.client.persistentVolumeClaims().inNamespace(ns).list().getItems())
              .extracting(v -> v.getMetadata().getName())
              .containsExactly("data-kappa-0");
          assertThat(operator.client.pods().inNamespace(ns).list().getItems()).isEmpty();
        });
    // Killed at the status write that follows the first member's Pod: the member runs, its
    // cluster ID was never recorded, and two members are still to be added to it.
    boolean[] created = {false};
    String status = "/etcdclusters/lambda/status";
    bootstrapKilledAt(
        "lambda",
        3,
        line -> {
          created[0] |= line.equals(pods);
          return created[0] && line.contains("/namespaces/" + ns + "/") && line.endsWith(status);
        },
        "at the status write after the first member's Pod (cluster ID not recorded)",
        () -> {
          assertThat(podNames()).containsExactly("kappa-0", "lambda-0");
          EtcdCluster left = EtcdClusters.get(operator.client, ns, "lambda");
          assertThat(left.getStatus() == null || left.getStatus().getClusterId() == null)
              .as("no cluster ID recorded")
              .isTrue();
        });
  }

  /**
   * Creates an EtcdCluster of {@code size} members with the operator cut off the API server at
   * {@code request} (before it is sent), checks what it left with {@code left}, and a fresh
   * operator must start the cluster: Ready, the first member never recreated as one joining peers.
   */
  void bootstrapKilledAt(
      String name, int size, Predicate<String> request, String row, Runnable left)
      throws Exception {
    long createdAt = System.nanoTime();
    BoundaryRows.Kill kill =
        BoundaryRows.kill(
            operator,
            true,
            request,
            () -> EtcdClusters.create(operator.testClient, ns, name, size, VERSION),
            cutAt -> left.run());
    // The Pods at the kill: none may be recreated (a first member recreated as joining
    // crash-loops).
    List<String> podsAtKill = ClusterObjects.podUids(operator.client, ns);
    EtcdCluster ready = awaitReady(name, size);
    double seconds = (System.nanoTime() - kill.restarted()) / 1e9;
    List<String> reasons = eventReasons(name);
    // A new cluster holds no keys yet: what counts is that it starts, and destroys nothing.
    BOUNDARIES.row(
        row + ", " + size + (size == 1 ? " member" : " members"),
        0,
        0,
        BoundaryRows.destructive(reasons),
        String.format("%.1f", seconds));
    System.out.printf(
        "bootstrap of %s killed at %s: Ready %.1f s after the restart (%.1f s after its"
            + " creation)%n",
        name, kill.cutAt(), seconds, (System.nanoTime() - createdAt) / 1e9);
    assertThat(ready.getStatus().getMembers()).extracting(Members::getName).startsWith(name + "-0");
    assertThat(reasons).contains("Bootstrapping").doesNotContain("RecreatingPods");
    assertThat(BoundaryRows.destructive(reasons)).as("destructive actions").isZero();
    assertThat(ClusterObjects.podUids(operator.client, ns))
        .as("the first member's Pod at the kill still serves")
        .containsAll(podsAtKill);
  }

  /**
   * The operator killed once etcd answered its MemberAdd: the learner is in etcd's member list and
   * the operator recorded nothing of it. A fresh operator finishes the scale-out, the first
   * member's ID and data kept, nothing destroyed. (The chaos lab draws such deaths at random; this
   * one is certain to be reached.)
   */
  @Test
  void aScaleOutWhoseOperatorDiedRightAfterAddingTheLearnerFinishes() throws Exception {
    EtcdClusters.create(operator.client, ns, "mu", 1, VERSION);
    String firstId = memberIds(awaitReady("mu", 1)).get("mu-0");
    EtcdCut cut = EtcdUnderTest.ETCD_CUT;
    try (io.etcd.jetcd.Client etcd =
        io.etcd.jetcd.Client.builder()
            .endpoints(endpoint("mu", "mu-0"))
            .keepaliveWithoutCalls(false)
            .build()) {
      put(etcd, "kept", "before the scale-out");
      cut.after(
          io.etcd.jetcd.api.ClusterGrpc.getMemberAddMethod().getFullMethodName()::equals,
          () -> operator.cut.before(request -> true));
      try {
        EtcdClusters.edit(operator.testClient, ns, "mu", s -> s.setSize(2));
        await("the operator cut off once etcd added the learner")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> cut.cutAt() != null);
        operator.stop();
      } finally {
        cut.heal();
        operator.cut.heal();
      }
      assertThat(
              etcd.getClusterClient()
                  .listMember()
                  .get(10, java.util.concurrent.TimeUnit.SECONDS)
                  .getMembers())
          .as("the learner etcd added before the operator died")
          .hasSize(2);
      long restarted = System.nanoTime();
      operator.start();
      EtcdCluster two = awaitReady("mu", 2);
      double seconds = (System.nanoTime() - restarted) / 1e9;
      List<String> reasons = eventReasons("mu");
      BOUNDARIES.row(
          "scale-out 1 to 2, killed after etcd added the learner",
          1,
          get(etcd, "kept") == null ? 1 : 0,
          BoundaryRows.destructive(reasons),
          String.format("%.1f", seconds));
      assertThat(memberIds(two).get("mu-0")).isEqualTo(firstId);
      assertThat(get(etcd, "kept")).isEqualTo("before the scale-out");
      assertThat(BoundaryRows.destructive(reasons)).as("destructive actions").isZero();
    }
  }

  /** Writes 20 kB values under {@code keys} distinct keys until etcd refuses: NOSPACE. */
  static void fillUntilNoSpace(io.etcd.jetcd.Client etcd, int keys) throws Exception {
    var value =
        io.etcd.jetcd.ByteSequence.from(
            "x".repeat(20_000), java.nio.charset.StandardCharsets.UTF_8);
    boolean full = false;
    for (int i = 0; i < 500 && !full; i++) {
      var key =
          io.etcd.jetcd.ByteSequence.from(
              "k-" + (i % keys), java.nio.charset.StandardCharsets.UTF_8);
      try {
        etcd.getKVClient().put(key, value).get(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(e.getCause()).hasMessageContaining("database space exceeded");
        full = true;
      }
    }
    assertThat(full).as("the quota was reached").isTrue();
  }

  io.etcd.jetcd.Client client(String cluster, String member) {
    return io.etcd.jetcd.Client.builder()
        .endpoints(endpoint(cluster, member))
        .keepaliveWithoutCalls(false)
        .build();
  }

  @Test
  void outOfSpaceAMemberStaysReadyAndServesReadsAndARecoveryThatCannotFitStops() throws Exception {
    EtcdClusters.createWithQuota(operator.client, ns, "mu", VERSION, 1_048_576L);
    awaitReady("mu", 1);
    try (io.etcd.jetcd.Client etcd = client("mu", "mu-0")) {
      // Every value under its own key: the live data itself fills the quota.
      fillUntilNoSpace(etcd, 500);
      awaitReason("mu", "Degraded", "NoSpace");
      // etcd's plain /health is false under any alarm: such a probe would take every member out
      // of the client Service, and with them the reads that still work.
      assertThat(kubelet.probeReady("mu-0")).as("ready during NOSPACE").isTrue();
      var read =
          etcd.getKVClient()
              .get(io.etcd.jetcd.ByteSequence.from("k-0", java.nio.charset.StandardCharsets.UTF_8))
              .get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(read.getKvs()).as("a linearizable read during NOSPACE").hasSize(1);

      EtcdClusters.edit(
          operator.client,
          ns,
          "mu",
          s -> {
            var m = new dev.bosun.etcd.v1alpha1.etcdclusterspec.Maintenance();
            m.setRecoverFromNoSpace(true);
            s.setMaintenance(m);
          });
      EtcdCluster stopped = awaitReason("mu", "Degraded", "NoSpaceRecoveryStopped");
      assertThat(EtcdClusters.conditionOf(stopped, "Degraded").getMessage())
          .startsWith("NOSPACE recovery stopped: after compaction and defragmentation")
          .contains("mu-0", "1048576-byte quota", "Delete keys");
      assertThat(reasonOf(stopped, "Ready")).isEqualTo("NoSpaceRecoveryStopped");
      // No loop: one defragmentation, and the alarm stays raised, the reason unchanged.
      await("no second round")
          .during(Duration.ofSeconds(6))
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                EtcdCluster c = EtcdClusters.get(operator.client, ns, "mu");
                return eventCount("mu", "Defragmented") == 1
                    && c.getStatus().getAlarms() != null
                    && "NoSpaceRecoveryStopped".equals(reasonOf(c, "Degraded"));
              });
      assertThat(eventReasons("mu"))
          .contains("NoSpaceRecoveryStopped")
          .doesNotContain("AlarmDisarmed");
    }
  }

  EtcdCluster awaitReason(String name, String type, String reason) {
    return EtcdClusters.awaitReason(operator.client, ns, name, type, reason);
  }

  static String reasonOf(EtcdCluster c, String type) {
    return EtcdClusters.reasonOf(c, type);
  }

  /** How many times events of {@code reason} were recorded (repeats are counted on one Event). */
  long eventCount(String cluster, String reason) {
    return ClusterObjects.events(operator.client, ns, cluster).stream()
        .filter(e -> reason.equals(e.getReason()))
        .mapToLong(e -> e.getCount() == null ? 1 : e.getCount())
        .sum();
  }

  @Test
  void aDeletedPodComesBackWithItsDataAndAMemberWithoutDataIsReplaced() {
    EtcdClusters.create(operator.client, ns, "gamma", 3, VERSION);
    Map<String, String> ids = memberIds(awaitReady("gamma", 3));

    operator.client.pods().inNamespace(ns).withName("gamma-1").delete();
    EtcdCluster back =
        EtcdClusters.await(
            operator.client,
            ns,
            "gamma",
            CONVERGE,
            "gamma-1 back",
            c -> EtcdClusters.readyWith(3).test(c) && memberIds(c).equals(ids));
    assertThat(memberIds(back)).as("same members, same IDs: the data came back").isEqualTo(ids);

    operator.client.persistentVolumeClaims().inNamespace(ns).withName("data-gamma-2").delete();
    operator.client.pods().inNamespace(ns).withName("gamma-2").delete();
    EtcdCluster replaced =
        EtcdClusters.await(
            operator.client,
            ns,
            "gamma",
            CONVERGE,
            "gamma-2 replaced",
            c ->
                EtcdClusters.readyWith(3).test(c)
                    && memberIds(c).containsKey("gamma-2")
                    && !memberIds(c).get("gamma-2").equals(ids.get("gamma-2")));
    // Its name is free again once its Pod and volume are gone; the member is a new one.
    assertThat(memberIds(replaced).keySet())
        .containsExactlyInAnyOrder("gamma-0", "gamma-1", "gamma-2");
    assertThat(memberIds(replaced)).containsEntry("gamma-0", ids.get("gamma-0"));
    assertThat(memberIds(replaced)).containsEntry("gamma-1", ids.get("gamma-1"));
    assertThat(eventReasons("gamma")).contains("RecreatingPods", "ReplacingLostMember");
  }

  @Test
  void aClusterCreatedAgainOverItsKeptVolumesResumesAndAForgedStampIsRefused() throws Exception {
    EtcdClusters.create(operator.client, ns, "rho", 3, VERSION);
    EtcdCluster first = awaitReady("rho", 3);
    Map<String, String> ids = memberIds(first);
    String clusterId = first.getStatus().getClusterId();
    try (io.etcd.jetcd.Client etcd = client("rho", "rho-0")) {
      put(etcd, "kept", "before the delete");
    }
    // Each member's volume names the cluster and member its data belongs to.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                ids.entrySet().stream()
                    .allMatch(
                        e ->
                            stamp("data-" + e.getKey())
                                .equals(Map.of("cluster", clusterId, "member", e.getValue()))));

    // Deleted (its volumes are kept by default) and created again: the same cluster comes back,
    // with the same member IDs and its data, instead of a new empty one.
    EtcdCluster deleted = EtcdClusters.deleteAndAwaitPodsGone(operator.client, ns, "rho");
    assertThat(volumeNames()).containsExactly("data-rho-0", "data-rho-1", "data-rho-2");
    EtcdClusters.createAgain(operator.client, deleted);
    EtcdCluster resumed =
        EtcdClusters.await(
            operator.client,
            ns,
            "rho",
            CONVERGE,
            "rho resumed",
            c -> EtcdClusters.readyWith(3).test(c) && memberIds(c).equals(ids));
    assertThat(resumed.getStatus().getClusterId()).isEqualTo(clusterId);
    try (io.etcd.jetcd.Client etcd = client("rho", "rho-1")) {
      assertThat(get(etcd, "kept")).isEqualTo("before the delete");
    }
    assertThat(eventReasons("rho")).contains("ResumingCluster");

    // A tenant forges one volume's stamp: volumes of two clusters are never started together, and
    // nothing is deleted.
    deleted = EtcdClusters.deleteAndAwaitPodsGone(operator.client, ns, "rho");
    operator
        .client
        .persistentVolumeClaims()
        .inNamespace(ns)
        .withName("data-rho-1")
        .edit(
            v -> {
              v.getMetadata().getAnnotations().put(EtcdOperator.CLUSTER_ID_ANNOTATION, "f00d");
              return v;
            });
    EtcdClusters.createAgain(operator.client, deleted);
    EtcdCluster refused =
        EtcdClusters.awaitReason(
            operator.client,
            ns,
            "rho",
            EtcdClusterStatusBuilder.READY,
            "VolumesOfDifferentClusters");
    assertThat(EtcdClusters.conditionOf(refused, EtcdClusterStatusBuilder.READY).getMessage())
        .contains("rho-1: f00d", "none is started");
    assertThat(podNames()).isEmpty();
    assertThat(volumeNames()).containsExactly("data-rho-0", "data-rho-1", "data-rho-2");
  }

  /** The stamp on a volume: its cluster and member annotations. */
  Map<String, String> stamp(String claim) {
    var annotations =
        operator
            .client
            .persistentVolumeClaims()
            .inNamespace(ns)
            .withName(claim)
            .get()
            .getMetadata()
            .getAnnotations();
    if (annotations == null
        || !annotations.containsKey(EtcdOperator.CLUSTER_ID_ANNOTATION)
        || !annotations.containsKey(EtcdOperator.MEMBER_ID_ANNOTATION)) {
      return Map.of();
    }
    return Map.of(
        "cluster", annotations.get(EtcdOperator.CLUSTER_ID_ANNOTATION),
        "member", annotations.get(EtcdOperator.MEMBER_ID_ANNOTATION));
  }

  static void put(io.etcd.jetcd.Client etcd, String key, String value) throws Exception {
    var utf8 = java.nio.charset.StandardCharsets.UTF_8;
    etcd.getKVClient()
        .put(
            io.etcd.jetcd.ByteSequence.from(key, utf8),
            io.etcd.jetcd.ByteSequence.from(value, utf8))
        .get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  static String get(io.etcd.jetcd.Client etcd, String key) throws Exception {
    var utf8 = java.nio.charset.StandardCharsets.UTF_8;
    var kvs =
        etcd.getKVClient()
            .get(io.etcd.jetcd.ByteSequence.from(key, utf8))
            .get(10, java.util.concurrent.TimeUnit.SECONDS)
            .getKvs();
    return kvs.isEmpty() ? null : kvs.get(0).getValue().toString(utf8);
  }

  @Test
  void withTwoOfThreeMembersDownTheClusterReportsQuorumLostAndNothingIsRemoved() {
    EtcdClusters.create(operator.client, ns, "delta", 3, VERSION);
    Map<String, String> ids = memberIds(awaitReady("delta", 3));
    List<String> pods = podUids();

    // Killed, and Kubernetes says so (container terminated): evidence, not just silence.
    kubelet.killContainer("delta-1");
    kubelet.killContainer("delta-2");
    EtcdCluster lost =
        EtcdClusters.await(
            operator.client,
            ns,
            "delta",
            Duration.ofSeconds(60),
            "QuorumLost",
            c -> EtcdClusters.condition(c, "QuorumLost"));
    assertThat(EtcdClusters.condition(lost, "Ready")).isFalse();
    assertThat(EtcdClusters.condition(lost, "Degraded")).isTrue();
    assertThat(lost.getStatus().getQuorumLostSince()).isNotNull();
    assertThat(EtcdClusters.conditionOf(lost, "QuorumLost").getMessage())
        .contains("down by Kubernetes' account", "delta-1, delta-2");
    // A scale request meanwhile changes nothing either.
    EtcdClusters.edit(operator.client, ns, "delta", s -> s.setSize(5));
    await("nothing removed, added or replaced")
        .during(Duration.ofSeconds(8))
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                podUids().equals(pods)
                    && volumeNames().size() == 3
                    && memberIds(EtcdClusters.get(operator.client, ns, "delta")).equals(ids));
    assertThat(eventReasons("delta")).contains("QuorumLost");
    // The survivor's readiness probe fails: etcd itself says it has no leader.
    await().atMost(Duration.ofSeconds(20)).until(() -> !kubelet.probeReady("delta-0"));

    kubelet.restartContainer("delta-1");
    kubelet.restartContainer("delta-2");
    EtcdClusters.edit(operator.client, ns, "delta", s -> s.setSize(3));
    EtcdCluster healed = awaitReady("delta", 3);
    assertThat(memberIds(healed)).isEqualTo(ids);
    assertThat(EtcdClusters.condition(healed, "QuorumLost")).isFalse();
  }

  @Test
  void membersTheOperatorCannotReachAreReportedAsSuchAndNothingIsTouched() {
    EtcdClusters.create(operator.client, ns, "zeta", 3, VERSION);
    Map<String, String> ids = memberIds(awaitReady("zeta", 3));
    List<String> pods = podUids();

    // Frozen (SIGSTOP): to the operator exactly like a partition; Kubernetes says they run.
    kubelet.process("zeta-1").orElseThrow().pause();
    kubelet.process("zeta-2").orElseThrow().pause();
    try {
      EtcdCluster unseen =
          EtcdClusters.await(
              operator.client,
              ns,
              "zeta",
              Duration.ofSeconds(60),
              "MembersUnreachable",
              c ->
                  c.getStatus() != null
                      && EtcdClusters.conditionOf(c, "QuorumLost") != null
                      && "MembersUnreachable"
                          .equals(EtcdClusters.conditionOf(c, "QuorumLost").getReason()));
      assertThat(EtcdClusters.conditionOf(unseen, "QuorumLost").getStatus()).isEqualTo("Unknown");
      assertThat(EtcdClusters.conditionOf(unseen, "QuorumLost").getMessage())
          .contains("cannot reach zeta-1, zeta-2");
      assertThat(EtcdClusters.conditionOf(unseen, "Ready").getReason())
          .isEqualTo("MembersUnreachable");
      assertThat(unseen.getStatus().getQuorumLostSince()).as("no recovery clock").isNull();
      EtcdClusters.edit(operator.client, ns, "zeta", s -> s.setSize(5));
      await("nothing removed, added or replaced")
          .during(Duration.ofSeconds(8))
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  podUids().equals(pods)
                      && volumeNames().size() == 3
                      && memberIds(EtcdClusters.get(operator.client, ns, "zeta")).equals(ids)
                      && EtcdClusters.get(operator.client, ns, "zeta")
                              .getStatus()
                              .getQuorumLostSince()
                          == null);
      assertThat(eventReasons("zeta")).contains("MembersUnreachable").doesNotContain("QuorumLost");
    } finally {
      kubelet.process("zeta-1").ifPresent(p -> p.resume());
      kubelet.process("zeta-2").ifPresent(p -> p.resume());
    }
    EtcdClusters.edit(operator.client, ns, "zeta", s -> s.setSize(3));
    assertThat(memberIds(awaitReady("zeta", 3))).isEqualTo(ids);
  }

  @Test
  void aLearnerWhosePodNeverRunsIsRemovedWhenTheSizeGoesBack() {
    EtcdClusters.create(operator.client, ns, "eta", 3, VERSION);
    Map<String, String> ids = memberIds(awaitReady("eta", 3));
    kubelet.holdBack("eta-3");
    EtcdClusters.edit(operator.client, ns, "eta", s -> s.setSize(4));
    EtcdClusters.await(
        operator.client,
        ns,
        "eta",
        Duration.ofSeconds(60),
        "a learner that does not start",
        c ->
            c.getStatus().getMembers().stream()
                    .anyMatch(
                        m -> m.getName().equals("eta-3") && m.getRole() == Members.Role.LEARNER)
                && "LearnerCatchingUp".equals(EtcdClusters.conditionOf(c, "Ready").getReason()));

    EtcdClusters.edit(operator.client, ns, "eta", s -> s.setSize(3));
    EtcdCluster back = awaitReady("eta", 3);
    assertThat(memberIds(back)).isEqualTo(ids);
    await().atMost(Duration.ofSeconds(30)).until(() -> podNames().size() == 3);
    assertThat(podNames()).containsExactly("eta-0", "eta-1", "eta-2");
    await().atMost(Duration.ofSeconds(30)).until(() -> volumeNames().size() == 3);
    assertThat(eventReasons("eta")).contains("RemovingUnstartedLearner");
  }

  int budget(String cluster) {
    return operator
        .client
        .policy()
        .v1beta1()
        .podDisruptionBudget()
        .inNamespace(ns)
        .withName(cluster)
        .get()
        .getSpec()
        .getMinAvailable()
        .getIntVal();
  }

  List<String> podUids() {
    return ClusterObjects.podUids(operator.client, ns);
  }

  @Test
  void upgradesOneMemberAtATimeWithTheLeaderLastAndRefusesADowngrade() {
    EtcdClusters.create(operator.client, ns, "eps", 3, VERSION);
    EtcdCluster ready = awaitReady("eps", 3);
    String leader = ready.getStatus().getLeader();
    List<String> recreated = new CopyOnWriteArrayList<>();
    var watch =
        operator
            .client
            .pods()
            .inNamespace(ns)
            .withLabel(EtcdOperator.MEMBER_LABEL)
            .inform(
                new ResourceEventHandler<Pod>() {
                  @Override
                  public void onAdd(Pod pod) {
                    if ("3.4.34"
                        .equals(
                            pod.getMetadata()
                                .getAnnotations()
                                .get(EtcdOperator.VERSION_ANNOTATION))) {
                      recreated.add(pod.getMetadata().getName());
                    }
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {}

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {}
                });
    try {
      EtcdClusters.edit(operator.client, ns, "eps", s -> s.setVersion("3.4.34"));
      EtcdClusters.await(
          operator.client,
          ns,
          "eps",
          CONVERGE,
          "upgraded",
          c ->
              EtcdClusters.readyWith(3).test(c)
                  && !EtcdClusters.condition(c, "Upgrading")
                  && recreated.size() == 3);
    } finally {
      watch.close();
    }
    assertThat(recreated).hasSize(3).doesNotHaveDuplicates();
    assertThat(recreated.get(2)).as("the leader goes last").isEqualTo(leader);
    assertThat(eventReasons("eps")).contains("UpgradingMember", "MovingLeader");

    List<String> pods = podUids();
    EtcdClusters.edit(operator.client, ns, "eps", s -> s.setVersion(VERSION));
    EtcdCluster refused =
        EtcdClusters.await(
            operator.client,
            ns,
            "eps",
            Duration.ofSeconds(30),
            "InvalidSpec",
            c ->
                c.getStatus().getConditions().stream()
                    .anyMatch(
                        x -> x.getType().equals("Ready") && "InvalidSpec".equals(x.getReason())));
    assertThat(refused.getStatus().getConditions())
        .filteredOn(x -> x.getType().equals("Ready"))
        .first()
        .satisfies(x -> assertThat(x.getMessage()).contains("downgrade"));
    assertThat(podUids()).as("nothing touched").isEqualTo(pods);
    assertThat(eventReasons("eps")).contains("InvalidSpec");
  }

  @Test
  void aTlsClusterIsManagedOverMutualTls() throws Exception {
    String name = "tls";
    ClusterRef ref = new ClusterRef(ns, name, true, true);
    List<String> ips =
        IntStream.range(0, 4)
            .mapToObj(i -> EtcdUnderTest.ADDRESSING.host(ref, name + "-" + i))
            .toList();
    TestCertificates ca = TestCertificates.newCa();
    // Members dial their peers from 127.0.0.1 (the default source address on loopback), and etcd
    // checks a peer certificate's IP addresses against where the connection comes from.
    List<String> memberIps = new java.util.ArrayList<>(ips);
    memberIps.add("127.0.0.1");
    secret("tls-member", ca.issue("member", memberIps));
    Map<String, String> operatorCert = ca.issue("operator", List.of());
    secret("tls-operator", operatorCert);

    EtcdCluster cluster = new EtcdCluster();
    cluster.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .build());
    var spec = new dev.bosun.etcd.v1alpha1.EtcdClusterSpec();
    spec.setSize(3);
    spec.setVersion(VERSION);
    var tls = new dev.bosun.etcd.v1alpha1.etcdclusterspec.Tls();
    tls.setServerSecretName("tls-member");
    tls.setPeerSecretName("tls-member");
    tls.setOperatorSecretName("tls-operator");
    spec.setTls(tls);
    cluster.setSpec(spec);
    operator.client.resource(cluster).create();

    EtcdCluster ready = awaitReady(name, 3);
    assertThat(ready.getStatus().getMembers())
        .allSatisfy(m -> assertThat(m.getClientURL()).startsWith("https://"));
    // A client with a certificate of the same CA reads and writes; the members require one.
    try (io.etcd.jetcd.Client c =
        io.etcd.jetcd.Client.builder()
            .endpoints(EtcdUnderTest.ADDRESSING.clientUrl(ref, name + "-0"))
            .keepaliveWithoutCalls(false)
            .sslContext(
                b ->
                    b.trustManager(ca.file("ca.crt").toFile())
                        .keyManager(
                            ca.file("operator.crt").toFile(), ca.file("operator.key").toFile()))
            .build()) {
      var key = io.etcd.jetcd.ByteSequence.from("k", java.nio.charset.StandardCharsets.UTF_8);
      c.getKVClient().put(key, key).get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(c.getKVClient().get(key).get(10, java.util.concurrent.TimeUnit.SECONDS).getCount())
          .isEqualTo(1);
    }
    // The readiness probe (the image's etcdctl with the mounted certificates) passes on real etcd.
    assertThat(kubelet.probeReady(name + "-0")).isTrue();
  }

  void secret(String name, Map<String, String> data) {
    Crds.secret(operator.client, ns, name, data);
  }

  static boolean owned(HasMetadata o) {
    return !o.getMetadata().getOwnerReferences().isEmpty();
  }
}
