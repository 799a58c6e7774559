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
import dev.bosun.platform.AckedWriter;
import dev.bosun.platform.RealNodeMySql;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import dev.bosun.platform.RealNodeSamples;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Randomized fault schedules against a MySQLCluster of three MariaDB containers on the real node,
 * run by the MySQL operator's chart Pods (two, one leading): members frozen, killed and deleted,
 * the leading operator killed, switchovers and rebuilds requested, overlapping. A writer in a
 * client Pod inserts through the primary Service the whole time and records every acknowledgement;
 * a sampler reads every member's read_only each second. Checked after each schedule: the cluster
 * Ready within the bound after the last heal, every acknowledged row on every member, never two
 * members that could acknowledge a write. Runs on {@code ./bosun chaos mysql --node} only (minutes
 * of a real node per schedule): CI runs the loopback lab's schedules.
 */
@ExtendWith(RealNodeExtension.class)
@EnabledIfSystemProperty(named = RealNodeMySqlChaosIT.ENABLED, matches = "true")
class RealNodeMySqlChaosIT {

  static final String ENABLED = "bosun.chaos.node";

  private static final String NS = "chaos-db";
  private static final String NAME = "chaos";
  private static final String CLIENT = "chaos-client";
  private static final List<String> MEMBERS = List.of(NAME + "-0", NAME + "-1", NAME + "-2");

  /** The schedules run without a seed or minutes given. */
  private static final List<Long> DEFAULT_SEEDS = List.of(31L, 47L, 59L);

  private static final ChaosSettings SETTINGS =
      ChaosSettings.fromSystemProperties(
          8, Duration.ofSeconds(60), 2, Duration.ofMinutes(4), DEFAULT_SEEDS);
  private static final ChaosTable TABLE =
      new ChaosTable(
          "mysql on the real node, 3 MariaDB containers, operator as Pods", "two writable");

  private static RealNodePlatform platform;
  private static RealNodeMySql db;
  private static AckedWriter writer;

  @BeforeAll
  static void install() {
    platform = RealNodePlatform.shared();
    platform
        .cluster()
        .node()
        .tagImage(platform.cluster().node().workloadsImage(), RealNodeSamples.MARIADB_IMAGE);
    RealNodePods.namespace(platform.admin(), NS, Map.of());
    db = new RealNodeMySql(platform, NS, NAME, CLIENT);
    db.create(
        3,
        "512Mi",
        "  failover: {primaryUnavailableSeconds: 10}\n  replication: {rebuild: Automatic}\n");
    db.awaitReady(3, Duration.ofMinutes(6));
    db.startClient();
    db.sql(AckedWriter.SCHEMA);
    writer = db.writer();
  }

  @AfterAll
  static void report() {
    TABLE.report(Path.of("target/chaos-results/mysql-node.md"));
  }

  @Test
  void everyScheduleKeepsEveryAcknowledgedRowOnEveryMember() throws Exception {
    SETTINGS.runAll(TABLE, "[chaos-node]", this::runSchedule);
  }

  /** Runs one seed's schedule on the cluster; returns why it failed, or null. */
  private String runSchedule(long seed, int n) throws Exception {
    FaultSchedule schedule = SETTINGS.schedule(seed, RealNodeMySqlNemesis.menu(NAME));
    String replay = "./bosun chaos mysql --node";
    System.err.println("[chaos-node] " + schedule.text(replay));
    Duration bound = schedule.end().plus(SETTINGS.readyBound()).plusMinutes(3);
    writer.allow();
    CompletableFuture<PodExec.Result> writes = writer.start(n * 1_000_000, 900_000, bound);
    long before = db.count();
    await("first writes of seed " + seed)
        .atMost(Duration.ofMinutes(1))
        .until(() -> db.count() >= before + 10);
    List<String> broken = new ArrayList<>();
    RealNodeMySqlNemesis nemesis = new RealNodeMySqlNemesis(platform, db, NS, NAME);
    ScheduleRun run;
    long healed;
    try (PodWritableSampler sampler =
        new PodWritableSampler(platform.admin(), NS, CLIENT, NAME, MEMBERS, bound)) {
      try {
        run = new ScheduleRunner(nemesis, ScheduleRunner.SYSTEM).run(schedule);
      } finally {
        nemesis.healAll();
        healed = System.nanoTime();
      }
      System.err.println("[chaos-node] seed " + seed + " run:\n" + run.logText());
      boolean ready = awaitReady();
      Duration readyAfter = Duration.ofNanos(System.nanoTime() - healed);
      if (!ready) {
        db.explain();
        broken.add(
            "not Ready within "
                + SETTINGS.readyBound().toSeconds()
                + " s of the last heal: "
                + db.readyCondition());
      } else {
        long atReady = db.count();
        try {
          await("writes after Ready")
              .atMost(Duration.ofSeconds(60))
              .until(() -> db.count() >= atReady + 20);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          broken.add("fewer than 20 writes in 60 s after Ready");
        }
      }
      writer.stop();
      String out = writes.join().stdout();
      List<AckedWriter.Ack> acks = AckedWriter.acks(out);
      SortedSet<Integer> acked = new TreeSet<>();
      acks.forEach(a -> acked.add(a.id()));
      SortedSet<Integer> lost = new TreeSet<>();
      if (ready) {
        for (String member : MEMBERS) {
          SortedSet<Integer> missing = missingOn(member, acked);
          if (!missing.isEmpty()) {
            broken.add(
                missing.size() + " acknowledged rows missing on " + member + ": " + head(missing));
            lost.addAll(missing);
          }
        }
      }
      if (sampler.unsafeSamples() > 0) {
        broken.add(
            sampler.unsafeSamples()
                + " samples with two writable members: "
                + sampler.unsafeDetails());
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
              sampler.unsafeSamples(),
              longestGap(acks),
              readyAfter));
      System.err.printf(
          "[chaos-node] seed %d: primary %s, %d acknowledged, %d writable samples, Ready %d s after"
              + " the last heal; %s%n",
          seed,
          db.primary(),
          acked.size(),
          sampler.samples(),
          readyAfter.toSeconds(),
          db.rebuildSummary());
    }
    if (broken.isEmpty()) {
      return null;
    }
    return run.failure("[chaos-node]", broken, replay);
  }

  /** Waits for Ready with three ready members within the bound; false if it did not come. */
  private static boolean awaitReady() {
    try {
      await("Ready after the last heal")
          .atMost(SETTINGS.readyBound())
          .pollInterval(Duration.ofSeconds(2))
          .until(() -> db.readyCondition().startsWith("True/") && allMembersAnswer());
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return false;
    }
  }

  private static boolean allMembersAnswer() {
    return MEMBERS.stream().allMatch(m -> !ids(m).isEmpty());
  }

  /**
   * The acknowledged rows {@code member} lacks once it had 60 s to apply what it received: a
   * replica applies behind the primary, a loss stays.
   */
  private static SortedSet<Integer> missingOn(String member, SortedSet<Integer> acked) {
    SortedSet<Integer> missing = new TreeSet<>(acked);
    try {
      await(member + " holds every acknowledged row")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () -> {
                missing.retainAll(acked);
                missing.removeAll(ids(member));
                return missing.isEmpty();
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // What is still missing is reported.
    }
    return missing;
  }

  private static final Pattern ID = Pattern.compile("(?m)^(\\d+)$");

  /** The ids in the writer's table on {@code member}, read through its own address. */
  private static SortedSet<Integer> ids(String member) {
    SortedSet<Integer> ids = new TreeSet<>();
    Matcher m =
        ID.matcher(
            db.sql(member + "." + NAME + "-headless", "SELECT id FROM " + AckedWriter.TABLE));
    while (m.find()) {
      ids.add(Integer.parseInt(m.group(1)));
    }
    return ids;
  }

  /** The longest time between two acknowledgements. */
  private static Duration longestGap(List<AckedWriter.Ack> acks) {
    long longest = 0;
    for (int i = 1; i < acks.size(); i++) {
      longest = Math.max(longest, acks.get(i).ackedMillis() - acks.get(i - 1).ackedMillis());
    }
    return Duration.ofMillis(longest);
  }

  private static String head(SortedSet<Integer> ids) {
    return ids.stream().limit(10).toList() + (ids.size() > 10 ? " ..." : "");
  }
}
