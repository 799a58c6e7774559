package dev.bosun.mysql.bench;

import static org.awaitility.Awaitility.await;

import dev.bosun.common.testing.LocalNode;
import dev.bosun.common.testing.PodExec;
import dev.bosun.platform.AckedWriter;
import dev.bosun.platform.RealNodeMySql;
import dev.bosun.platform.RealNodePlatform;
import dev.bosun.platform.RealNodePods;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One fault of a benchmark on the real node: a writer through the primary Service, the fault, the
 * time to the first write acknowledged after it, and the acknowledged rows checked on the final
 * primary once the cluster is Ready again.
 */
final class FailoverRun {

  /**
   * One run's figures; {@code seconds} is NaN when no write issued after the fault was
   * acknowledged.
   */
  record Row(
      PrimaryFault fault,
      int run,
      double seconds,
      int acknowledged,
      int lost,
      String primaryBefore,
      String primaryAfter,
      String note) {

    /** The row as a person reads it in the benchmark's progress output. */
    String sentence() {
      return String.format(
          "%s, run %d: first acknowledged write after %s; %d acknowledged, %d lost; primary %s"
              + " -> %s%s",
          fault.label(),
          run,
          Double.isNaN(seconds) ? "none" : String.format("%.1f s", seconds),
          acknowledged,
          lost,
          primaryBefore,
          primaryAfter,
          note == null || note.isEmpty() ? "" : " (" + note + ")");
    }
  }

  /** Rows the writer acknowledges before the fault strikes: writes are flowing. */
  private static final int WARM_UP_ROWS = 20;

  /** Bounds on one writer: far more inserts than one run makes, and a few minutes. */
  private static final int ATTEMPTS = 20_000;

  private static final Duration WRITER_LIMIT = Duration.ofMinutes(6);
  private static final Duration RECOVERY_LIMIT = Duration.ofMinutes(4);
  private static final Duration READY_LIMIT = Duration.ofMinutes(6);

  private final KubernetesClient admin;
  private final LocalNode node;
  private final String namespace;
  private final RealNodeMySql db;
  private final AckedWriter writer;

  FailoverRun(RealNodePlatform platform, String namespace, RealNodeMySql db) {
    this.admin = platform.admin();
    this.node = platform.cluster().node();
    this.namespace = namespace;
    this.db = db;
    this.writer = db.writer();
  }

  /** Strikes the primary with {@code fault}; the writer numbers its rows from {@code firstId}. */
  Row measure(PrimaryFault fault, int run, int firstId) {
    db.awaitReady(3, READY_LIMIT);
    String primary = db.primary();
    String container = db.containerId(primary);
    writer.allow();
    CompletableFuture<PodExec.Result> writes = writer.start(firstId, ATTEMPTS, WRITER_LIMIT);
    long before = db.count();
    await("rows acknowledged before the fault")
        .atMost(Duration.ofMinutes(1))
        .until(() -> db.count() > before + WARM_UP_ROWS);
    long atFault = db.count();
    long faultMillis = System.currentTimeMillis();
    fault.inject(admin, node, namespace, primary, container);
    long struckMillis = System.currentTimeMillis();
    List<String> trail = Collections.synchronizedList(new ArrayList<>());
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    sampleReadyCondition(sampler, faultMillis, trail);
    String note = "";
    try {
      // Counted through the primary Service like the writer's rows: writes flow again.
      await("writes acknowledged after the fault")
          .atMost(RECOVERY_LIMIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> db.count() > atFault + WARM_UP_ROWS);
    } catch (ConditionTimeoutException e) {
      note = "no writes within " + RECOVERY_LIMIT.toMinutes() + " min";
      db.explain();
    } finally {
      sampler.shutdownNow();
      fault.undo(node, container);
      writer.stop();
    }
    trail.forEach(System.err::println);
    String out = writes.join().stdout();
    printOperatorTimeline(faultMillis);
    db.awaitReady(3, READY_LIMIT);
    Set<Integer> acked = RealNodePods.numbered(out, "ack");
    Set<Integer> lost = new HashSet<>(acked);
    lost.removeAll(db.storedIds());
    double seconds =
        AckedWriter.firstAckAfter(out, faultMillis, struckMillis).stream()
            .mapToDouble(at -> (at - faultMillis) / 1000.0)
            .findFirst()
            .orElse(Double.NaN);
    return new Row(fault, run, seconds, acked.size(), lost.size(), primary, db.primary(), note);
  }

  /**
   * What the MySQL operator logged about this cluster after the fault, each line with its time from
   * the fault: where the seconds to the first acknowledged write went (detection and failover in
   * the operator, the rest in routing and the writer's reconnects).
   */
  private void printOperatorTimeline(long faultMillis) {
    printEvents(faultMillis);
    for (var pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (!pod.getMetadata().getName().contains("mysql-operator")) {
        continue;
      }
      String log;
      try {
        log =
            admin
                .pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .tailingLines(400)
                .getLog();
      } catch (RuntimeException e) {
        System.err.println("[bench]   no operator log: " + e.getMessage());
        continue;
      }
      Pattern line =
          Pattern.compile(
              "^ts=(\\S+) .*resource=MySQLCluster/" + namespace + "/\\S+ msg=\"([^\"]*)\"");
      Pattern trouble = Pattern.compile("^ts=(\\S+) level=(WARN|ERROR) .*msg=\"([^\"]*)\"");
      for (String l : log.split("\n")) {
        Matcher m = line.matcher(l);
        if (!m.find()) {
          Matcher t = trouble.matcher(l);
          if (t.find()
              && Instant.parse(t.group(1)).toEpochMilli() >= faultMillis
              && !l.contains("resource=MySQLCluster/")) {
            System.err.printf(
                "[bench]   %5.1f s %s %s%n",
                (Instant.parse(t.group(1)).toEpochMilli() - faultMillis) / 1000.0,
                t.group(2),
                t.group(3).length() > 200 ? t.group(3).substring(0, 200) : t.group(3));
          }
          continue;
        }
        long at = Instant.parse(m.group(1)).toEpochMilli();
        if (at >= faultMillis) {
          System.err.printf(
              "[bench]   %5.1f s %s%n",
              (at - faultMillis) / 1000.0,
              m.group(2).length() > 200 ? m.group(2).substring(0, 200) : m.group(2));
        }
      }
    }
  }

  /**
   * The namespace's Events from the fault on (the kubelet's and the operator's, to the second as
   * Kubernetes stores them): how long the Pod took to come back, and what the operator waited for.
   */
  private void printEvents(long faultMillis) {
    for (var e : admin.v1().events().inNamespace(namespace).list().getItems()) {
      String last = e.getLastTimestamp() != null ? e.getLastTimestamp() : e.getFirstTimestamp();
      if (last == null) {
        continue;
      }
      long at = Instant.parse(last).toEpochMilli();
      if (at < faultMillis - 1000) {
        continue;
      }
      String message = e.getMessage() == null ? "" : e.getMessage();
      System.err.printf(
          "[bench]   %5.0f s event %s %s: %s%n",
          (at - faultMillis) / 1000.0,
          e.getInvolvedObject().getName(),
          e.getReason(),
          message.length() > 160 ? message.substring(0, 160) : message);
    }
  }

  /**
   * Every half second from the fault until recovery, the cluster's Ready condition when it changed:
   * what the operator was waiting for while no write went through (its Wait steps log nothing).
   */
  private void sampleReadyCondition(
      ScheduledExecutorService sampler, long faultMillis, List<String> trail) {
    String[] last = {""};
    sampler.scheduleWithFixedDelay(
        () -> {
          try {
            String now = db.readyCondition();
            if (!now.equals(last[0])) {
              last[0] = now;
              trail.add(
                  String.format(
                      "[bench]   %5.1f s Ready %s",
                      (System.currentTimeMillis() - faultMillis) / 1000.0,
                      now.length() > 220 ? now.substring(0, 220) : now));
            }
          } catch (RuntimeException e) {
            trail.add("[bench]   status not read: " + e.getMessage());
          }
        },
        0,
        500,
        TimeUnit.MILLISECONDS);
  }
}
