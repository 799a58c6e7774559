package dev.bosun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.LocalControlPlane;
import dev.bosun.common.testing.PodExec;
import dev.bosun.common.testing.RealNodeCluster;
import dev.bosun.common.testing.RealNodeExtension;
import dev.bosun.platform.AckedWriter;
import dev.bosun.platform.PlatformChart;
import dev.bosun.platform.PlatformRelease;
import dev.bosun.platform.PreviousRelease;
import dev.bosun.platform.RealNodeMySql;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.RealNodeSamples;
import dev.bosun.platform.Resources;
import dev.bosun.platform.Sample;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An upgrade as a user makes it: the platform chart and operator images of an earlier commit
 * ({@link #PREVIOUS}) installed on the real node, every sample of that commit applied (a
 * three-member MySQLCluster, a three-member EtcdCluster, a WebService, a ConfigMapSync and a
 * ConfigMonitor) and Ready, then {@code helm upgrade} to the current charts while a writer inserts
 * rows through the MySQL primary. Then: every operator Deployment runs the current image; every
 * object is Ready again and stays so; a workload Pod restarted only where CHANGELOG.md's Unreleased
 * section says so, and then one member at a time; no failover; every acknowledged row kept; the
 * etcd members the same; and every custom resource reads back, raw and through the current Java
 * types, with every field it was stored with.
 *
 * <p>Runs first among the real-node classes (failsafe's alphabetical order) on a node without the
 * platform, and leaves the upgraded platform as the one the later classes share.
 */
@ExtendWith(RealNodeExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeChartUpgradeIT {

  /**
   * The commit upgraded from: the last whose CI passed before the webhooks were on by default
   * (charts 0.2.0). There is no release tag yet; the first one replaces this.
   */
  static final String PREVIOUS = "973720f";

  private static final String MYSQL = "catalog-db";
  private static final String MYSQL_NS = "team-a";
  private static final int MYSQL_MEMBERS = 3;

  /** The typed class of each kind the samples hold, as the current operators read them. */
  private static final Map<String, Class<? extends HasMetadata>> TYPES =
      Map.of(
          "MySQLCluster", dev.bosun.mysql.v1alpha1.MySQLCluster.class,
          "EtcdCluster", dev.bosun.etcd.v1alpha1.EtcdCluster.class,
          "WebService", dev.bosun.web.v1alpha1.WebService.class,
          "ConfigMapSync", dev.bosun.config.v1alpha1.ConfigMapSync.class,
          "ConfigMonitor", dev.bosun.config.v1alpha1.ConfigMonitor.class);

  /** How CHANGELOG.md names the Pods of each kind when it announces their restart. */
  private static final Map<String, String> WORKLOADS =
      Map.of(
          "MySQLCluster", "MySQL members",
          "EtcdCluster", "etcd members",
          "WebService", "WebService Pods");

  /** A custom resource the samples created, and its spec as stored under the old schema. */
  record Stored(String apiVersion, String kind, String namespace, String name, Object spec) {}

  private static KubernetesClient admin;
  private static RealNodePlatform platform;
  private static final List<Stored> stored = new ArrayList<>();
  private static final Set<String> namespaces = new TreeSet<>();
  private static Map<String, WorkloadPods.Incarnation> podsBefore;
  private static Map<String, WorkloadPods.Incarnation> podsAfter;
  private static Map<String, String> operatorPodsBefore;
  private static String primaryBefore;
  private static Object lastFailoverBefore;
  private static Set<String> etcdMembersBefore;
  private static int mostMySqlMembersDown;
  private static Instant upgradeStarted;
  private static RealNodeMySql mysql;
  private static String writerOutput;
  private static Set<Integer> rowsAfter;

  @BeforeAll
  static void installPreviousApplySamplesThenUpgrade() throws Exception {
    RealNodeCluster cluster = RealNodeCluster.shared();
    admin = cluster.adminClient();
    assertThat(admin.namespaces().withName(PlatformRelease.NAMESPACE).get())
        .as(
            "the platform must not be installed yet: this class installs "
                + PREVIOUS
                + " first (it runs first among the RealNode classes)")
        .isNull();
    Instant t0 = Instant.now();
    PreviousRelease previous = PreviousRelease.of(PREVIOUS);
    phase("previous release (" + previous + ") built or taken from the cache", t0);

    Instant t1 = Instant.now();
    platform = RealNodePlatform.installPrevious(cluster, RealNodePlatform.REPLICAS, previous);
    phase("platform of " + PREVIOUS + " installed, operators ready", t1);

    Instant t2 = Instant.now();
    RealNodeSamples samples = new RealNodeSamples(cluster);
    for (Sample sample : Sample.ALL) {
      samples.apply(admin, previous.source(), sample);
      stored.addAll(customResources(previous.source().resolve(sample.file()), sample.namespace()));
    }
    stored.forEach(s -> namespaces.add(s.namespace()));
    awaitEveryObjectReady(Duration.ofMinutes(6));
    phase("samples of " + PREVIOUS + " Ready", t2);

    mysql = new RealNodeMySql(platform, MYSQL_NS, MYSQL, "upgrade-writer");
    mysql.startClient();
    mysql.sql(AckedWriter.SCHEMA);
    recordBefore();

    AckedWriter writer = mysql.writer();
    CompletableFuture<PodExec.Result> writes = writer.start(0, 1_000_000, Duration.ofMinutes(10));
    await("the writer's first acknowledged row")
        .atMost(Duration.ofSeconds(60))
        .until(() -> mysql.count() > 0);

    upgradeStarted = Instant.now();
    try (UnavailableMembers down = new UnavailableMembers(admin, MYSQL_NS, MYSQL, MYSQL_MEMBERS)) {
      platform.upgradeToCurrent();
      phase("helm upgrade to the current charts, operators rolled", upgradeStarted);
      Instant t4 = Instant.now();
      awaitEveryObjectReady(Duration.ofMinutes(6));
      // Ready must last: the new operators' first rounds (a failover, a roll) happen in here.
      await("every object to stay Ready under the current operators")
          .during(Duration.ofSeconds(20))
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(2))
          .until(RealNodeChartUpgradeIT::everyObjectReady);
      phase("every object Ready again and for 20 s", t4);
      mostMySqlMembersDown = down.most();
    } finally {
      writer.stop();
    }
    writerOutput = writes.get().stdout();
    podsAfter = WorkloadPods.of(workloadPods());
    rowsAfter = mysql.storedIds();
    phase("the whole upgrade test's setup", t0);
  }

  @AfterAll
  static void removeTheSamples() {
    if (admin == null) {
      return;
    }
    // The later real-node classes share the upgraded platform; the samples' Pods would only load
    // the node while they run. Their data is of no use any more: no grace period (a MariaDB
    // member's is 60 s), and a terminating namespace refuses new Pods. The namespaces themselves
    // may finish in the background.
    Instant t0 = Instant.now();
    try (KubernetesClient client = admin) {
      namespaces.forEach(ns -> client.namespaces().withName(ns).delete());
      namespaces.forEach(ns -> client.pods().inNamespace(ns).withGracePeriod(0).delete());
      await("the samples' Pods to be gone")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  namespaces.stream()
                      .allMatch(ns -> client.pods().inNamespace(ns).list().getItems().isEmpty()));
    }
    phase("samples removed", t0);
  }

  @Test
  @Order(1)
  void everyOperatorRolledToTheCurrentImage() {
    for (String operator : PlatformChart.OPERATORS) {
      List<Pod> pods =
          platform.pods(operator).stream()
              .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
              .toList();
      assertThat(pods).as(operator + " pods").hasSize(RealNodePlatform.REPLICAS);
      for (Pod pod : pods) {
        assertThat(operatorPodsBefore)
            .as("operator Pods before")
            .doesNotContainKey(pod.getMetadata().getUid());
        assertThat(pod.getSpec().getContainers().get(0).getImage())
            .as(operator + " image")
            .endsWith("bosun/" + operator + "-operator:" + currentAppVersion());
        assertThat(RealNodePods.ready(pod)).as(pod.getMetadata().getName() + " ready").isTrue();
      }
    }
  }

  @Test
  @Order(2)
  void workloadPodsRestartOnlyWhereTheChangelogSaysAndThenOneMemberAtATime() {
    ReleaseNotes notes = ReleaseNotes.of(LocalControlPlane.repoRoot().resolve("CHANGELOG.md"));
    Set<String> restarted = WorkloadPods.restartedOrReplaced(podsBefore, podsAfter);
    System.err.println(
        "[upgrade] workload Pods restarted or replaced: "
            + restarted
            + " of "
            + podsBefore.keySet()
            + "; most MySQL members down at once: "
            + mostMySqlMembersDown);
    for (String pod : restarted) {
      Stored owner = ownerOf(pod);
      assertThat(notes.announcesRestartOf(WORKLOADS.get(owner.kind())))
          .as(
              pod
                  + " ("
                  + owner.kind()
                  + ") restarted, which CHANGELOG.md's Unreleased section does not announce")
          .isTrue();
    }
    assertThat(mostMySqlMembersDown).as("MySQL members unavailable at once").isLessThanOrEqualTo(1);
    assertThat(podsAfter.keySet()).as("workload Pods after").containsAll(podsBefore.keySet());
  }

  @Test
  @Order(3)
  void mySqlDidNotFailOverAndKeptEveryAcknowledgedRow() {
    Map<String, Object> status = mysql.status();
    assertThat(status.get("lastFailoverTime")).as("lastFailoverTime").isEqualTo(lastFailoverBefore);
    List<String> failovers =
        eventsSinceUpgrade(MYSQL_NS, MYSQL).stream()
            .filter(e -> "FailedOver".equals(e.getReason()))
            .map(Event::getMessage)
            .toList();
    assertThat(failovers).as("failover Events after the upgrade began").isEmpty();
    if (!primaryBefore.equals(status.get("primary"))) {
      // A moved primary is only allowed as the roll's switchover, announced as such.
      assertThat(eventsSinceUpgrade(MYSQL_NS, MYSQL))
          .as("an UpgradeSwitchover Event for the new primary " + status.get("primary"))
          .anyMatch(e -> "UpgradeSwitchover".equals(e.getReason()));
    }
    Set<Integer> acked =
        AckedWriter.acks(writerOutput).stream()
            .map(AckedWriter.Ack::id)
            .collect(Collectors.toSet());
    System.err.println(
        "[upgrade] MySQL: primary "
            + primaryBefore
            + " → "
            + status.get("primary")
            + ", "
            + acked.size()
            + " rows acknowledged during the upgrade, "
            + RealNodePods.numbered(writerOutput, "fail").size()
            + " refused, "
            + rowsAfter.size()
            + " stored");
    assertThat(acked).as("rows acknowledged during the upgrade").isNotEmpty();
    assertThat(rowsAfter).as("acknowledged rows stored after the upgrade").containsAll(acked);
  }

  @Test
  @Order(4)
  void etcdKeptItsMembers() {
    assertThat(etcdMemberIds()).as("etcd member IDs").isEqualTo(etcdMembersBefore);
  }

  @Test
  @Order(5)
  void everyCustomResourceReadsBackWithEveryStoredField() {
    assertThat(stored).as("custom resources the samples stored").hasSize(5);
    for (Stored s : stored) {
      assertThat(s.spec()).as(s.kind() + " " + s.name() + " spec as stored").isNotNull();
      GenericKubernetesResource raw =
          Resources.get(admin, s.apiVersion(), s.kind(), s.namespace(), s.name());
      assertThat(StoredFields.lostOrChanged(s.spec(), raw.getAdditionalProperties().get("spec")))
          .as(s.kind() + " " + s.name() + " read back raw under the current schema")
          .isEmpty();
      HasMetadata typed =
          admin.resources(TYPES.get(s.kind())).inNamespace(s.namespace()).withName(s.name()).get();
      Object typedSpec = Serialization.jsonMapper().convertValue(typed, Map.class).get("spec");
      assertThat(StoredFields.lostOrChanged(s.spec(), typedSpec))
          .as(s.kind() + " " + s.name() + " read back through " + TYPES.get(s.kind()).getName())
          .isEmpty();
    }
  }

  private static void recordBefore() {
    podsBefore = WorkloadPods.of(workloadPods());
    operatorPodsBefore = new HashMap<>();
    for (String operator : PlatformChart.OPERATORS) {
      platform
          .pods(operator)
          .forEach(p -> operatorPodsBefore.put(p.getMetadata().getUid(), operator));
    }
    Map<String, Object> status = mysql.status();
    primaryBefore = String.valueOf(status.get("primary"));
    lastFailoverBefore = status.get("lastFailoverTime");
    etcdMembersBefore = etcdMemberIds();
    List<Stored> asStored = new ArrayList<>();
    for (Stored s : stored) {
      GenericKubernetesResource r =
          Resources.get(admin, s.apiVersion(), s.kind(), s.namespace(), s.name());
      asStored.add(
          new Stored(
              s.apiVersion(),
              s.kind(),
              s.namespace(),
              s.name(),
              r.getAdditionalProperties().get("spec")));
    }
    stored.clear();
    stored.addAll(asStored);
    System.err.println(
        "[upgrade] before: workload Pods "
            + podsBefore
            + ", MySQL primary "
            + primaryBefore
            + ", lastFailoverTime "
            + lastFailoverBefore
            + ", etcd members "
            + etcdMembersBefore);
  }

  /** The Pods the samples' custom resources run (not the writer's client Pod). */
  private static List<Pod> workloadPods() {
    return namespaces.stream()
        .flatMap(ns -> admin.pods().inNamespace(ns).list().getItems().stream())
        .filter(p -> ownerOrNull(p.getMetadata().getName()) != null)
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static Stored ownerOf(String pod) {
    Stored owner = ownerOrNull(pod);
    assertThat(owner).as("the custom resource of " + pod).isNotNull();
    return owner;
  }

  // Each workload names its Pods after its custom resource: catalog-db-0, demo-1, hello-web-….
  private static Stored ownerOrNull(String pod) {
    return stored.stream()
        .filter(s -> WORKLOADS.containsKey(s.kind()))
        .filter(s -> pod.startsWith(s.name() + "-"))
        .findFirst()
        .orElse(null);
  }

  @SuppressWarnings("unchecked")
  private static Set<String> etcdMemberIds() {
    Stored etcd =
        stored.stream().filter(s -> s.kind().equals("EtcdCluster")).findFirst().orElseThrow();
    Map<String, Object> status =
        (Map<String, Object>)
            Resources.get(admin, etcd.apiVersion(), etcd.kind(), etcd.namespace(), etcd.name())
                .getAdditionalProperties()
                .get("status");
    return ((List<Map<String, Object>>) status.get("members"))
        .stream()
            .map(m -> String.valueOf(m.get("id")))
            .collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<Event> eventsSinceUpgrade(String namespace, String name) {
    return admin.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .filter(e -> lastSeen(e).isAfter(upgradeStarted))
        .toList();
  }

  private static Instant lastSeen(Event e) {
    if (e.getLastTimestamp() != null) {
      return Instant.parse(e.getLastTimestamp());
    }
    return e.getEventTime() != null
        ? Instant.parse(e.getEventTime().getTime())
        : Instant.parse(e.getMetadata().getCreationTimestamp());
  }

  private static void awaitEveryObjectReady(Duration limit) {
    try {
      await("every sample object Ready")
          .atMost(limit)
          .pollInterval(Duration.ofSeconds(2))
          .until(RealNodeChartUpgradeIT::everyObjectReady);
    } catch (ConditionTimeoutException e) {
      for (Stored s : stored) {
        GenericKubernetesResource r =
            Resources.get(admin, s.apiVersion(), s.kind(), s.namespace(), s.name());
        System.err.println(
            "[upgrade] "
                + s.kind()
                + " "
                + s.namespace()
                + "/"
                + s.name()
                + " status: "
                + (r == null ? "(gone)" : r.getAdditionalProperties().get("status")));
      }
      PlatformChart.OPERATORS.forEach(op -> platform.pods(op).forEach(platform::describe));
      throw e;
    }
  }

  private static boolean everyObjectReady() {
    return stored.stream()
        .allMatch(
            s ->
                Resources.ready(
                    Resources.get(admin, s.apiVersion(), s.kind(), s.namespace(), s.name())));
  }

  /** The custom resources (group *.bosun.dev) of a sample file, where they are applied. */
  private static List<Stored> customResources(java.nio.file.Path file, String namespace) {
    String yaml;
    try {
      yaml = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return admin.resourceList(yaml).items().stream()
        .filter(o -> o.getApiVersion().contains(".bosun.dev/"))
        .map(
            o ->
                new Stored(
                    o.getApiVersion(),
                    o.getKind(),
                    o.getMetadata().getNamespace() != null
                        ? o.getMetadata().getNamespace()
                        : namespace,
                    o.getMetadata().getName(),
                    null))
        .toList();
  }

  /** The image tag the current charts default to: their appVersion. */
  private static String currentAppVersion() {
    try {
      String chart = Files.readString(PlatformChart.dir().resolve("Chart.yaml"));
      return chart
          .lines()
          .filter(l -> l.startsWith("appVersion:"))
          .map(l -> l.substring("appVersion:".length()).trim().replace("\"", ""))
          .findFirst()
          .orElseThrow();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void phase(String what, Instant since) {
    System.err.printf(
        "[upgrade] %s: %.1f s%n", what, Duration.between(since, Instant.now()).toMillis() / 1000.0);
  }
}
