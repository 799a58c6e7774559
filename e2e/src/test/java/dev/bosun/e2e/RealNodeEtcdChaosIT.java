package dev.bosun.e2e;

import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.PodExec;
import dev.bosun.common.testing.RealNodeExtension;
import dev.bosun.common.testing.chaos.ChaosResult;
import dev.bosun.common.testing.chaos.ChaosSettings;
import dev.bosun.common.testing.chaos.ChaosTable;
import dev.bosun.common.testing.chaos.FaultSchedule;
import dev.bosun.common.testing.chaos.ScheduleRun;
import dev.bosun.common.testing.chaos.ScheduleRunner;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.Resources;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Randomized fault schedules against an EtcdCluster of three etcd containers on the real node, run
 * by the etcd operator's chart Pods: members frozen, killed and deleted, the leading operator
 * killed, the cluster grown to five members and shrunk back, overlapping. A writer in a client Pod
 * puts a new key through the client Service the whole time and records every acknowledgement.
 * Checked after each schedule: the cluster Ready with three members within the bound after the last
 * heal, and every acknowledged key read back (linearizably) at the value written. Runs on {@code
 * ./bosun chaos etcd --node} only: CI runs the loopback lab's schedules.
 */
@ExtendWith(RealNodeExtension.class)
@EnabledIfSystemProperty(named = RealNodeMySqlChaosIT.ENABLED, matches = "true")
class RealNodeEtcdChaosIT {

  private static final String NS = "chaos-etcd";
  private static final String NAME = "kv";
  private static final String WRITER = "kv-writer";
  private static final String ENDPOINT = "http://" + NAME + "-client:2379";
  private static final String REPOSITORY = "docker.io/bosun/etcd";
  private static final String VERSION = "3.4.23";

  /** The schedules run without a seed or minutes given. */
  private static final List<Long> DEFAULT_SEEDS = List.of(31L, 47L, 59L);

  private static final ChaosSettings SETTINGS =
      ChaosSettings.fromSystemProperties(
          8, Duration.ofSeconds(60), 2, Duration.ofMinutes(4), DEFAULT_SEEDS);
  private static final ChaosTable TABLE =
      new ChaosTable(
          "etcd on the real node, 3 etcd containers, operator as Pods", "read at a wrong value");

  private static final Pattern ACK = Pattern.compile("(?m)^ack (\\d+) (\\d+)$");

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
    admin
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: etcd.bosun.dev/v1alpha1
                kind: EtcdCluster
                metadata: {name: %s, namespace: %s}
                spec:
                  size: 3
                  repository: %s
                  version: "%s"
                  storage: {size: 256Mi, whenScaledDown: Delete, whenDeleted: Delete}
                """
                    .formatted(NAME, NS, REPOSITORY, VERSION),
                GenericKubernetesResource.class))
        .create();
    await("EtcdCluster " + NAME + " Ready with three members")
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(1))
        .until(RealNodeEtcdChaosIT::ready);
    RealNodePods.run(
        admin,
        NS,
        RealNodePods.shell(WRITER, platform.cluster().node().workloadsImage(), Map.of()));
  }

  @AfterAll
  static void report() {
    TABLE.report(Path.of("target/chaos-results/etcd-node.md"));
  }

  @Test
  void everyScheduleKeepsEveryAcknowledgedKeyAtItsValue() throws Exception {
    SETTINGS.runAll(TABLE, "[chaos-node]", this::runSchedule);
  }

  /** Runs one seed's schedule on the cluster; returns why it failed, or null. */
  private String runSchedule(long seed, int n) throws Exception {
    FaultSchedule schedule = SETTINGS.schedule(seed, RealNodeEtcdNemesis.menu(NAME));
    String replay = "./bosun chaos etcd --node";
    System.err.println("[chaos-node] " + schedule.text(replay));
    Duration bound = schedule.end().plus(SETTINGS.readyBound()).plusMinutes(3);
    String prefix = "s" + n + "-";
    PodExec.sh(admin, NS, WRITER, Duration.ofSeconds(10), "rm -f /tmp/stop");
    CompletableFuture<PodExec.Result> writes =
        CompletableFuture.supplyAsync(
            () -> PodExec.sh(admin, NS, WRITER, bound.plusMinutes(1), writer(prefix, bound)));
    await("first writes of seed " + seed)
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofSeconds(2))
        .until(() -> stored(prefix).size() >= 10);
    List<String> broken = new ArrayList<>();
    RealNodeEtcdNemesis nemesis = new RealNodeEtcdNemesis(platform, NS, NAME);
    ScheduleRun run;
    long healed;
    try {
      run = new ScheduleRunner(nemesis, ScheduleRunner.SYSTEM).run(schedule);
    } finally {
      nemesis.healAll();
      healed = System.nanoTime();
    }
    System.err.println("[chaos-node] seed " + seed + " run:\n" + run.logText());
    boolean ready;
    try {
      await("Ready with three members after the last heal")
          .atMost(SETTINGS.readyBound())
          .pollInterval(Duration.ofSeconds(1))
          .until(RealNodeEtcdChaosIT::ready);
      ready = true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      ready = false;
      broken.add(
          "not Ready with three members within "
              + SETTINGS.readyBound().toSeconds()
              + " s of the last heal: "
              + Resources.get(admin, RealNodeEtcdNemesis.API, "EtcdCluster", NS, NAME)
                  .getAdditionalProperties()
                  .get("status"));
    }
    Duration readyAfter = Duration.ofNanos(System.nanoTime() - healed);
    if (ready) {
      int atReady = stored(prefix).size();
      try {
        await("writes after Ready")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(2))
            .until(() -> stored(prefix).size() >= atReady + 20);
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        broken.add("fewer than 20 writes in 60 s after Ready");
      }
    }
    PodExec.sh(admin, NS, WRITER, Duration.ofSeconds(10), "touch /tmp/stop");
    String out = writes.join().stdout();
    Map<Integer, Long> acked = new HashMap<>();
    Matcher m = ACK.matcher(out);
    while (m.find()) {
      acked.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
    }
    SortedSet<Integer> lost = new TreeSet<>();
    SortedSet<Integer> wrong = new TreeSet<>();
    if (ready) {
      Map<Integer, String> stored = stored(prefix);
      for (Integer i : acked.keySet()) {
        String value = stored.get(i);
        if (value == null) {
          lost.add(i);
        } else if (!value.equals("v" + i)) {
          wrong.add(i);
        }
      }
    }
    if (!lost.isEmpty()) {
      broken.add(lost.size() + " acknowledged keys missing: " + head(lost));
    }
    if (!wrong.isEmpty()) {
      broken.add(wrong.size() + " acknowledged keys at another value: " + head(wrong));
    }
    if (acked.isEmpty()) {
      broken.add("nothing acknowledged");
    }
    TABLE.add(
        new ChaosResult(
            seed,
            schedule.faults().size(),
            run.injected(),
            acked.size(),
            lost.size(),
            wrong.size(),
            longestGap(acked),
            readyAfter));
    System.err.printf(
        "[chaos-node] seed %d: %d acknowledged, Ready %d s after the last heal%n",
        seed, acked.size(), readyAfter.toSeconds());
    if (broken.isEmpty()) {
      return null;
    }
    return run.failure("[chaos-node]", broken, replay);
  }

  /**
   * A writer putting {@code prefix}N = vN for N = 0, 1, ..., printing "ack N MILLIS" for each
   * acknowledged put; bounded by time and by 100,000 puts, and stopped early by /tmp/stop.
   */
  private static String writer(String prefix, Duration bound) {
    return "i=0; end=$(( $(date +%s) + "
        + bound.toSeconds()
        + " )); while [ $i -lt 100000 ] && [ $(date +%s) -lt $end ] && [ ! -f /tmp/stop ]; do"
        + " if timeout 5 etcdctl --endpoints="
        + ENDPOINT
        + " --dial-timeout=2s --command-timeout=3s put "
        + prefix
        + "$i v$i >/dev/null 2>&1; then echo ack $i $(/bin/date +%s%3N);"
        + " else echo fail $i; sleep 0.2; fi; i=$((i+1)); done; echo done";
  }

  /** The keys under {@code prefix} and their values, read linearizably through the Service. */
  private static Map<Integer, String> stored(String prefix) {
    List<String> lines =
        PodExec.sh(
                admin,
                NS,
                WRITER,
                Duration.ofSeconds(60),
                "timeout 30 etcdctl --endpoints="
                    + ENDPOINT
                    + " --command-timeout=20s get "
                    + prefix
                    + " --prefix")
            .stdout()
            .lines()
            .toList();
    Map<Integer, String> stored = new HashMap<>();
    for (int i = 0; i + 1 < lines.size(); i += 2) {
      String key = lines.get(i);
      if (key.startsWith(prefix) && key.substring(prefix.length()).matches("\\d+")) {
        stored.put(Integer.parseInt(key.substring(prefix.length())), lines.get(i + 1));
      }
    }
    return stored;
  }

  /** Ready for its generation with three running member Pods. */
  private static boolean ready() {
    long running =
        admin
            .pods()
            .inNamespace(NS)
            .withLabel("app.kubernetes.io/instance", NAME)
            .list()
            .getItems()
            .stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null && RealNodePods.ready(p))
            .count();
    return running == 3
        && Resources.ready(Resources.get(admin, RealNodeEtcdNemesis.API, "EtcdCluster", NS, NAME));
  }

  /** The longest time between two acknowledgements. */
  private static Duration longestGap(Map<Integer, Long> acked) {
    List<Long> times = acked.values().stream().sorted().toList();
    long longest = 0;
    for (int i = 1; i < times.size(); i++) {
      longest = Math.max(longest, times.get(i) - times.get(i - 1));
    }
    return Duration.ofMillis(longest);
  }

  private static String head(SortedSet<Integer> ids) {
    return ids.stream().limit(10).toList() + (ids.size() > 10 ? " ..." : "");
  }
}
