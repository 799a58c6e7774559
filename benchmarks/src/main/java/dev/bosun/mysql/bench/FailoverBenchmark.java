package dev.bosun.mysql.bench;

import static org.awaitility.Awaitility.await;

import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.MariaDbServers;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Failover time on real MariaDB servers (primary killed -> new primary acknowledging writes),
 * detection timeout subtracted, over {@code -Dbench.runs} runs (10); and the cost of the health
 * polling in queries per second per cluster at the chart's default poll interval; and the API
 * requests per minute of the operator with one idle, converged cluster ({@code
 * -Dbench.idleSeconds}, 60).
 */
public final class FailoverBenchmark {

  private static final Duration DETECTION = Duration.ofMillis(1000);
  private static final Duration TICK = Duration.ofMillis(100);

  private FailoverBenchmark() {}

  public static void main(String[] args) throws Exception {
    int runs = Integer.getInteger("bench.runs", 10);
    int instances = Integer.getInteger("bench.instances", 3);
    long pollMillis = Long.getLong("bench.pollMillis", 2000);
    List<Double> millis = new ArrayList<>();
    List<Map<String, Double>> phases = new ArrayList<>();
    double qps;
    IdleCost.Result idle;
    Duration idleFor = Duration.ofSeconds(Integer.getInteger("bench.idleSeconds", 60));
    try (MariaDbServers fleet = new MariaDbServers()) {
      for (int run = 1; run <= runs; run++) {
        FailoverTimeline timeline = new FailoverTimeline();
        double ms = oneFailover(fleet, run, instances, timeline);
        millis.add(ms);
        phases.add(timeline.phases());
        System.out.printf(
            "run %2d: failover %.0f ms (detection %d ms subtracted); %s%n",
            run, ms, DETECTION.toMillis(), FailoverTimeline.format(timeline.phases()));
      }
      qps = pollingCost(fleet, instances, Duration.ofMillis(pollMillis));
      idle = IdleCost.measure(fleet, instances, idleFor);
    }
    System.out.printf("median per phase (ms): %s%n", FailoverTimeline.format(medians(phases)));
    List<Double> sorted = new ArrayList<>(millis);
    sorted.sort(Double::compare);
    double median =
        sorted.size() % 2 == 1
            ? sorted.get(sorted.size() / 2)
            : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
    System.out.printf(
        "failover over %d runs (%d instances, MariaDB %s): min %.0f ms, median %.0f ms, max %.0f ms%n",
        runs, instances, "10.11", sorted.get(0), median, sorted.get(sorted.size() - 1));
    System.out.printf(
        "health polling: %.2f queries/s per %d-instance cluster at a %d ms poll interval%n",
        qps, instances, pollMillis);
    System.out.printf(
        "idle operator: %.1f API reads/min and %.1f API writes/min per converged %d-instance"
            + " cluster over %d s (watches not counted; the tests' poll interval is 500 ms)%n",
        idle.readsPerMinute(), idle.writesPerMinute(), instances, idleFor.toSeconds());
    idle.sample().forEach(r -> System.out.println("    " + r));
  }

  /** The median of each phase over the runs that passed it. */
  private static Map<String, Double> medians(List<Map<String, Double>> runs) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (Map<String, Double> run : runs) {
      for (String phase : run.keySet()) {
        out.putIfAbsent(phase, 0.0);
      }
    }
    for (String phase : out.keySet()) {
      List<Double> values = new ArrayList<>();
      runs.forEach(r -> Optional.ofNullable(r.get(phase)).ifPresent(values::add));
      values.sort(Double::compare);
      out.put(phase, values.get(values.size() / 2));
    }
    return out;
  }

  /**
   * One failover: returns milliseconds from the kill to the first write the new primary
   * acknowledged, minus detection.
   */
  private static double oneFailover(
      MariaDbServers fleet, int run, int instances, FailoverTimeline timeline) throws Exception {
    Map<String, MariaDbServers.Server> servers = new LinkedHashMap<>();
    Map<String, Address> addresses = new LinkedHashMap<>();
    for (int i = 0; i < instances; i++) {
      String name = "r" + run + "-" + i;
      MariaDbServers.Server s = fleet.create(name, 100 + i).start();
      servers.put(name, s);
      addresses.put(name, s.address());
    }
    TopologyController controller =
        new TopologyController(
            new MariaDbDialect(),
            MariaDbServers.CREDENTIALS,
            Duration.ofSeconds(2),
            Clock.systemUTC(),
            10,
            timeline::mark);
    TopologyController.Desired desired =
        new TopologyController.Desired(instances, true, DETECTION, null, 3_600_000);
    TopologyController.Tick tick = converge(controller, desired, addresses, run);
    TopologyRecord record = tick.record();
    String oldPrimary = record.primary();
    AppClient.createSchema(addresses.get(oldPrimary));
    AtomicReference<String> target = new AtomicReference<>(oldPrimary);
    AtomicLong firstAckOnNew = new AtomicLong();
    AtomicBoolean running = new AtomicBoolean(true);
    Thread writer = startWriter(addresses, oldPrimary, target, firstAckOnNew, running, timeline);
    pause();
    // SIGKILL straight from here, timed as it is sent. Server.kill() forks kill(1) twice and then
    // waits for the server's watchdog shell to notice (it checks once a second): the operator's
    // rounds, which this thread runs, would stand still for up to a second after the kill.
    long killed = System.nanoTime();
    ProcessHandle.of(servers.get(oldPrimary).pid()).ifPresent(ProcessHandle::destroyForcibly);
    timeline.markAt(FailoverTimeline.KILLED, killed);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (firstAckOnNew.get() == 0 && System.nanoTime() < deadline) {
      long started = System.nanoTime();
      tick = controller.tick(desired, record, addresses, tick.plan().errant(), null, saved -> {});
      timeline.round(started, tick.plan().step());
      record = tick.record();
      if (!oldPrimary.equals(record.primary())) {
        target.set(record.primary());
      }
      pause();
    }
    running.set(false);
    writer.join(10_000);
    servers.values().forEach(MariaDbServers.Server::kill);
    if (firstAckOnNew.get() == 0) {
      throw new IllegalStateException("run " + run + ": no write acknowledged by a new primary");
    }
    return (firstAckOnNew.get() - killed) / 1e6 - DETECTION.toMillis();
  }

  /** Ticks the controller until the new cluster is steady (a primary, replicas following). */
  private static TopologyController.Tick converge(
      TopologyController controller,
      TopologyController.Desired desired,
      Map<String, Address> addresses,
      int run) {
    TopologyRecord record = TopologyRecord.empty();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    TopologyController.Tick tick;
    do {
      tick = controller.tick(desired, record, addresses, Set.of(), null, saved -> {});
      record = tick.record();
      pause();
    } while (!tick.steady() && System.nanoTime() < deadline);
    if (!tick.steady()) {
      throw new IllegalStateException("run " + run + ": the cluster did not converge");
    }
    return tick;
  }

  /**
   * The application: inserts to {@code target} until {@code running} ends, and marks the first
   * write a new primary acknowledged.
   */
  private static Thread startWriter(
      Map<String, Address> addresses,
      String oldPrimary,
      AtomicReference<String> target,
      AtomicLong firstAckOnNew,
      AtomicBoolean running,
      FailoverTimeline timeline) {
    Thread writer =
        new Thread(
            () -> {
              long id = 1;
              while (running.get()) {
                String t = target.get();
                try {
                  AppClient.insert(addresses.get(t), id++);
                  long acknowledged = System.nanoTime();
                  if (!t.equals(oldPrimary) && firstAckOnNew.compareAndSet(0, acknowledged)) {
                    timeline.markAt(FailoverTimeline.ACKNOWLEDGED, acknowledged);
                  }
                } catch (SQLException refused) {
                  // The old primary is gone or the new one is not open yet: try again.
                }
              }
            });
    writer.setDaemon(true);
    writer.start();
    return writer;
  }

  /** Health-poll queries per second of one converged cluster at the given poll interval. */
  private static double pollingCost(MariaDbServers fleet, int instances, Duration poll)
      throws Exception {
    Map<String, Address> addresses = new LinkedHashMap<>();
    for (int i = 0; i < instances; i++) {
      addresses.put("poll-" + i, fleet.create("poll-" + i, 100 + i).start().address());
    }
    TopologyController controller =
        new TopologyController(
            new MariaDbDialect(),
            MariaDbServers.CREDENTIALS,
            Duration.ofSeconds(2),
            Clock.systemUTC(),
            10);
    TopologyController.Desired desired =
        new TopologyController.Desired(instances, true, Duration.ofSeconds(30), null, 3_600_000);
    TopologyRecord record = TopologyRecord.empty();
    TopologyController.Tick tick;
    do {
      tick = controller.tick(desired, record, addresses, Set.of(), null, saved -> {});
      record = tick.record();
    } while (!tick.steady());
    long before = controller.observationQueries();
    long start = System.nanoTime();
    int rounds = 10;
    for (int i = 0; i < rounds; i++) {
      controller.tick(desired, record, addresses, Set.of(), null, saved -> {});
    }
    long queries = controller.observationQueries() - before;
    double perRound = queries / (double) rounds;
    System.out.printf(
        "health round: %.0f queries, %.1f ms each (measured over %d rounds)%n",
        perRound, (System.nanoTime() - start) / 1e6 / rounds, rounds);
    return perRound / (poll.toMillis() / 1000.0);
  }

  /** The operator's round interval in this benchmark: the loop is paced, it waits for nothing. */
  private static void pause() {
    await().pollDelay(TICK).atMost(TICK.plusSeconds(1)).until(() -> true);
  }
}
