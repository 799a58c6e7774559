package dev.bosun.etcd.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.Edits;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.common.testing.drill.DrillTable;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.objects.MemberVolumes;
import dev.bosun.etcd.plan.ClusterRef;
import dev.bosun.etcd.plan.MemberNames;
import dev.bosun.etcd.testing.ClusterObjects;
import dev.bosun.etcd.testing.EtcdClusters;
import dev.bosun.etcd.testing.EtcdUnderTest;
import dev.bosun.etcd.testing.ProcessKubelet;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import dev.bosun.etcd.v1alpha1.etcdclusterstatus.Members;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.options.GetOption;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A member whose volume is lost is removed from etcd, its Pod and volume deleted, and a new member
 * added as a learner (volume, then Pod) and promoted: the operator is killed at each boundary of
 * that sequence and a fresh one started. The state left behind is made by the operator's own code
 * up to that point ({@link dev.bosun.common.testing.ApiCut} cuts it off the API server at the
 * request that follows the boundary). One cluster serves every boundary: each starts from three
 * healthy members, replaces a follower and must end with three healthy members, the same survivors
 * on the same Pods and volumes, and every key written so far. The member replaced is a follower: a
 * leader's replacement starts by moving leadership, an etcd call after which a fresh operator
 * simply plans the replacement of a follower.
 *
 * <p>Each boundary is a row of a drill table (target/drill-results/etcd-member-replacement.md):
 * keys written so far, keys lost, members removed from etcd (one, the member whose data was lost,
 * unless a learner was thrown away too), survivors' Pods or volumes replaced, and the seconds from
 * the restart to three healthy members.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdMemberReplacementIT {

  static final String CLUSTER = "rep";
  static final Duration CONVERGE = Duration.ofSeconds(90);

  /** How long a deleted member Pod stays Terminating (a kubelet stopping etcd gracefully). */
  static final Duration TERMINATION = Duration.ofSeconds(2);

  static final String HOLD = "test.bosun.dev/terminating";

  RunningOperator operator;
  KubernetesClient client;
  String ns;
  ProcessKubelet kubelet;
  final Map<String, String> written = new TreeMap<>();

  static final DrillTable TABLE =
      new DrillTable(
          "etcd member replacement, operator killed at each boundary",
          List.of(
              "operator killed",
              "keys written",
              "lost",
              "members removed",
              "survivors' Pods or volumes replaced",
              "seconds to 3 healthy"));

  /** Where a member replacement is interrupted, and what etcd and Kubernetes hold right then. */
  enum Boundary {
    /** etcd removed the member; its Pod and volume are untouched. */
    MEMBER_REMOVED(true, "DELETE", "/pods/%s", 2, 0, 3, "after the lost member's MemberRemove"),
    /** ... and its Pod is deleted; its volume is not. */
    POD_DELETED(
        true, "DELETE", "/persistentvolumeclaims/data-%s", 2, 0, 2, "after its Pod's deletion"),
    /** ... and its volume is deleted too, before the step is recorded. */
    VOLUME_DELETED(
        false, "DELETE", "/persistentvolumeclaims/data-%s", 2, 0, 2, "after its volume's deletion"),
    /** A new member is a learner in etcd; it has neither volume nor Pod. */
    LEARNER_ADDED(
        true, "POST", "/persistentvolumeclaims", 2, 1, 2, "after the new learner's MemberAdd"),
    /** ... with its volume, and no Pod. */
    VOLUME_CREATED(true, "POST", "/pods", 2, 1, 2, "after the learner's volume"),
    /** ... with its Pod too, before the step is recorded. */
    POD_CREATED(false, "POST", "/pods", 2, 1, 3, "after the learner's Pod"),
    /** The learner is promoted; its Pod is not yet labelled a voter (behind the client Service). */
    PROMOTED(true, "PATCH", "/pods/", 3, 0, 3, "after the learner's promotion");

    final boolean before;
    final String method;
    final String path;
    final int voters;
    final int learners;
    final int livePods;
    final String row;

    Boundary(
        boolean before,
        String method,
        String path,
        int voters,
        int learners,
        int livePods,
        String row) {
      this.before = before;
      this.method = method;
      this.path = path;
      this.voters = voters;
      this.learners = learners;
      this.livePods = livePods;
      this.row = row;
    }

    /** The operator's request the cut happens at (before it, or right after it). */
    Predicate<String> request(String ns, String victim) {
      String suffix = path.contains("%s") ? String.format(path, victim) : path;
      String prefix = method + " /api/v1/namespaces/" + ns;
      return line ->
          line.startsWith(prefix)
              && (suffix.endsWith("/") ? line.contains(suffix) : line.endsWith(suffix));
    }
  }

  @BeforeAll
  void cluster() throws Exception {
    operator = EtcdUnderTest.operator().start();
    client = operator.testClient;
    ns =
        Crds.namespace(
            client, "etcdrep-" + UUID.randomUUID().toString().substring(0, 6), Map.of(), Map.of());
    // The test's own client: the cut must not take the kubelet with the operator.
    kubelet =
        new ProcessKubelet(client, ns, Files.createTempDirectory("process-kubelet-" + ns)).start();
    EtcdClusters.create(client, ns, CLUSTER, 3, EtcdClusterIT.VERSION);
    awaitReady();
    write("before", 100);
  }

  @AfterAll
  void cleanup() {
    BoundaryRows.finish(TABLE, "etcd-member-replacement.md");
    if (kubelet != null) {
      kubelet.close();
    }
    if (ns != null) {
      client.namespaces().withName(ns).delete();
    }
    operator.close();
  }

  @ParameterizedTest
  @EnumSource(Boundary.class)
  void operatorKilledAtEachBoundaryOfAMemberReplacement(Boundary boundary) throws Exception {
    EtcdCluster ready = awaitReady();
    write(boundary.name(), 10);
    Map<String, String> ids = memberIds(ready);
    // A follower, so that no leadership moves first (a step without a request of its own to cut
    // at); the highest index, the name the old code gave the replacement too early.
    String victim =
        ready.getStatus().getMembers().stream()
            .map(Members::getName)
            .filter(n -> !n.equals(ready.getStatus().getLeader()))
            .max(java.util.Comparator.comparing(EtcdMemberReplacementIT::index))
            .orElseThrow();
    Map<String, String> survivors = new TreeMap<>(ids);
    survivors.remove(victim);
    Map<String, String> survivorObjects = objectUids(survivors.keySet());

    Map<String, Long> events = eventCounts();

    long victimId = Long.parseUnsignedLong(ids.get(victim), 16);
    List<CompletableFuture<List<String>>> reusedMeanwhile = new java.util.ArrayList<>();
    Set<String> learnersAtCut = new java.util.TreeSet<>();
    BoundaryRows.Kill kill =
        BoundaryRows.kill(
            operator,
            boundary.before,
            boundary.request(ns, victim),
            () -> {
              reusedMeanwhile.add(holdTermination(victim, victimId, survivors.keySet()));
              // The member's data is lost: its volume is being deleted (its Pod still runs on it).
              client.persistentVolumeClaims().inNamespace(ns).withName(claim(victim)).delete();
            },
            cutAt ->
                learnersAtCut.addAll(
                    assertLeftAsAtTheBoundary(boundary, cutAt, survivors.keySet(), victimId)));
    String cutAt = kill.cutAt();
    long restarted = kill.restarted();
    EtcdCluster back =
        EtcdClusters.await(
            client,
            ns,
            CLUSTER,
            CONVERGE,
            "three healthy members again after " + boundary,
            c ->
                EtcdClusters.readyWith(3).test(c)
                    && !memberIds(c).containsValue(ids.get(victim))
                    && memberPods().size() == 3
                    && volumes().size() == 3
                    && memberPods().stream().allMatch(EtcdMemberReplacementIT::voterLabelled));

    double seconds = (System.nanoTime() - restarted) / 1e9;
    Map<String, String> readBack = read();
    Map<String, String> replaced = objectUids(survivors.keySet());
    Set<String> removed = new java.util.TreeSet<>(ids.values());
    removed.addAll(learnersAtCut);
    removed.removeAll(memberIds(back).values());
    TABLE.row(
        boundary.row,
        written.size(),
        BoundaryRows.lost(written, readBack),
        removed.size(),
        replaced.entrySet().stream()
            .filter(e -> !e.getValue().equals(survivorObjects.get(e.getKey())))
            .count(),
        String.format("%.1f", seconds));

    assertThat(memberIds(back))
        .as("the survivors are the same members")
        .containsAllEntriesOf(survivors);
    assertThat(replaced).as("no survivor's Pod or volume was replaced").isEqualTo(survivorObjects);
    assertThat(readBack).as("every key written so far").isEqualTo(written);
    assertThat(memberIds(back).values())
        .as("the learner left at %s is resumed, not removed and replaced", boundary)
        .containsAll(learnersAtCut);
    assertThat(removed).as("members removed from etcd").containsExactly(ids.get(victim));
    if (boundary == Boundary.LEARNER_ADDED) {
      String learner = MemberNames.next(CLUSTER, ids.keySet());
      assertThat(eventMessages("ResumingLearner"))
          .as("the Event that says the learner is resumed")
          .contains(
              "creating the volume and Pod of learner "
                  + learner
                  + ", which was added to etcd before the operator stopped and never started");
      assertThat(since(events)).doesNotContainKey("RemovingUnexpectedMember");
    }
    assertThat(reusedMeanwhile.get(0).get(10, TimeUnit.SECONDS))
        .as("members etcd listed under %s's address while its old Pod was terminating", victim)
        .isEmpty();
    System.out.printf(
        "operator killed at %s (%s): back to 3 healthy members %.1f s after the restart;"
            + " Events %s%n",
        boundary, cutAt, seconds, since(events));
  }

  /**
   * Keeps the member's Pod Terminating for {@link #TERMINATION} once it is deleted, as a kubelet
   * does while etcd stops (up to the Pod's grace period), and watches etcd meanwhile: the members
   * it lists at that member's peer address then (but for the member itself, which a survivor may
   * still list for a moment after its removal). A new member under the old name would get the old,
   * terminating volume, and its Pod could not be created until the old one is gone.
   */
  CompletableFuture<List<String>> holdTermination(
      String member, long memberId, Set<String> survivors) {
    var pod = client.pods().inNamespace(ns).withName(member);
    Edits.edit(
        pod,
        p -> {
          p.getMetadata().getFinalizers().add(HOLD);
          return p;
        });
    URI address =
        EtcdUnderTest.ADDRESSING.peerUrl(new ClusterRef(ns, CLUSTER, false, false), member);
    return CompletableFuture.supplyAsync(
        () -> {
          List<String> seen = new java.util.ArrayList<>();
          try (Client c = etcd(survivors)) {
            await()
                .atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> pod.get().getMetadata().getDeletionTimestamp() != null);
            // Sampled every 100 ms for the whole grace period; what is seen is asserted on.
            try {
              await()
                  .during(TERMINATION)
                  .atMost(TERMINATION.plusSeconds(10))
                  .pollInterval(Duration.ofMillis(100))
                  .until(
                      () -> {
                        c
                            .getClusterClient()
                            .listMember()
                            .get(5, TimeUnit.SECONDS)
                            .getMembers()
                            .stream()
                            .filter(m -> m.getId() != memberId && m.getPeerURIs().contains(address))
                            .forEach(
                                m -> seen.add(Long.toHexString(m.getId()) + " " + m.getPeerURIs()));
                        return seen.isEmpty();
                      });
            } catch (org.awaitility.core.ConditionTimeoutException sawOne) {
              // A member at the address: returned below for the caller's assertion.
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          } finally {
            Edits.edit(
                pod,
                p -> {
                  p.getMetadata().getFinalizers().remove(HOLD);
                  return p;
                });
          }
          return seen.stream().distinct().toList();
        });
  }

  /**
   * What etcd (asked through the survivors) and Kubernetes hold after the operator died; returns
   * the IDs of the learners etcd lists then.
   */
  Set<String> assertLeftAsAtTheBoundary(
      Boundary boundary, String cutAt, java.util.Set<String> survivors, long victimId) {
    Set<String> learners = new java.util.TreeSet<>();
    await("etcd's members when the operator died at " + boundary + " (" + cutAt + ")")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              List<Member> members = memberList(survivors);
              assertThat(members).extracting(Member::getId).doesNotContain(victimId);
              assertThat(members.stream().filter(m -> !m.isLearner()).count())
                  .as("voters")
                  .isEqualTo(boundary.voters);
              assertThat(members.stream().filter(Member::isLearner).count())
                  .as("learners")
                  .isEqualTo(boundary.learners);
              learners.clear();
              members.stream()
                  .filter(Member::isLearner)
                  .forEach(m -> learners.add(Long.toHexString(m.getId())));
            });
    assertThat(memberPods().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null))
        .as("live member Pods at %s", boundary)
        .hasSize(boundary.livePods);
    return learners;
  }

  EtcdCluster awaitReady() {
    return EtcdClusters.await(
        client, ns, CLUSTER, CONVERGE, "Ready with 3", EtcdClusters.readyWith(3));
  }

  static int index(String member) {
    return Integer.parseInt(member.substring(member.lastIndexOf('-') + 1));
  }

  static String claim(String member) {
    return MemberVolumes.claimName(member);
  }

  static Map<String, String> memberIds(EtcdCluster c) {
    return c.getStatus().getMembers().stream()
        .collect(Collectors.toMap(Members::getName, Members::getId));
  }

  static boolean voterLabelled(HasMetadata pod) {
    return "true".equals(pod.getMetadata().getLabels().get(EtcdOperator.VOTER_LABEL));
  }

  List<io.fabric8.kubernetes.api.model.Pod> memberPods() {
    return client.pods().inNamespace(ns).withLabel(EtcdOperator.MEMBER_LABEL).list().getItems();
  }

  List<io.fabric8.kubernetes.api.model.PersistentVolumeClaim> volumes() {
    return client.persistentVolumeClaims().inNamespace(ns).list().getItems();
  }

  /** The UIDs of the members' Pods and volumes: equal maps mean none was replaced. */
  Map<String, String> objectUids(java.util.Collection<String> members) {
    Map<String, String> uids = new TreeMap<>();
    for (HasMetadata o : memberPods()) {
      if (members.contains(o.getMetadata().getName())) {
        uids.put("pod/" + o.getMetadata().getName(), o.getMetadata().getUid());
      }
    }
    for (HasMetadata o : volumes()) {
      if (members.stream()
          .map(EtcdMemberReplacementIT::claim)
          .toList()
          .contains(o.getMetadata().getName())) {
        uids.put("volume/" + o.getMetadata().getName(), o.getMetadata().getUid());
      }
    }
    return uids;
  }

  /** A client of every member with a Pod now: reads and writes go through the quorum. */
  Client etcd() {
    return etcd(
        memberPods().stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .map(p -> p.getMetadata().getName())
            .toList());
  }

  Client etcd(java.util.Collection<String> members) {
    ClusterRef ref = new ClusterRef(ns, CLUSTER, false, false);
    URI[] endpoints =
        members.stream().map(m -> EtcdUnderTest.ADDRESSING.clientUrl(ref, m)).toArray(URI[]::new);
    return Client.builder().endpoints(endpoints).keepaliveWithoutCalls(false).build();
  }

  void write(String prefix, int count) throws Exception {
    try (Client c = etcd()) {
      for (int i = 0; i < count; i++) {
        String key = "data/" + prefix + "/" + i;
        String value = UUID.randomUUID().toString();
        c.getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
        written.put(key, value);
      }
    }
  }

  Map<String, String> read() throws Exception {
    try (Client c = etcd()) {
      return c
          .getKVClient()
          .get(bytes("data/"), GetOption.builder().isPrefix(true).build())
          .get(10, TimeUnit.SECONDS)
          .getKvs()
          .stream()
          .collect(
              Collectors.toMap(
                  kv -> kv.getKey().toString(StandardCharsets.UTF_8),
                  kv -> kv.getValue().toString(StandardCharsets.UTF_8),
                  (a, b) -> a,
                  TreeMap::new));
    }
  }

  /** The member list as {@code members} serve it (a removed member still lists itself). */
  List<Member> memberList(java.util.Collection<String> members) throws Exception {
    try (Client c = etcd(members)) {
      return c.getClusterClient().listMember().get(10, TimeUnit.SECONDS).getMembers();
    }
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** How often each Event reason was recorded (repeats count on one Event). */
  Map<String, Long> eventCounts() {
    return ClusterObjects.events(client, ns, CLUSTER).stream()
        .collect(
            Collectors.groupingBy(
                e -> e.getReason(),
                TreeMap::new,
                Collectors.summingLong(e -> e.getCount() == null ? 1 : e.getCount())));
  }

  /** The messages of the Events with that reason. */
  List<String> eventMessages(String reason) {
    return ClusterObjects.events(client, ns, CLUSTER).stream()
        .filter(e -> reason.equals(e.getReason()))
        .map(e -> e.getMessage())
        .toList();
  }

  /** The Events recorded since {@code before}. */
  Map<String, Long> since(Map<String, Long> before) {
    Map<String, Long> now = eventCounts();
    now.replaceAll((reason, count) -> count - before.getOrDefault(reason, 0L));
    now.values().removeIf(c -> c == 0);
    return now;
  }
}
