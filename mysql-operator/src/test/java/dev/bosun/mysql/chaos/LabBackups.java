package dev.bosun.mysql.chaos;

import static org.awaitility.Awaitility.await;

import dev.bosun.common.backup.FileSystemBackupStore;
import dev.bosun.mysql.backup.BackupSource;
import dev.bosun.mysql.backup.JobFailures;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.client.MariaDbDialect;
import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.reconciler.LabClusterStatus;
import dev.bosun.mysql.reconciler.MySQLBackupReconciler;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.LabOperator;
import dev.bosun.mysql.testing.MariaDbServers;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The backups a schedule asks for, taken while the faults go on as the MySQLBackup reconciler takes
 * them: its choice of source from the status a round writes, {@link BackupSource}'s checks, {@link
 * LogicalDump}; a failed attempt is tried again. Once the cluster is steady each dump is restored
 * into a fresh server, which must hold every write acknowledged before it was asked.
 */
final class LabBackups implements AutoCloseable {

  /**
   * Shorter than the reconciler's minute, so that a schedule's backup is tried several times within
   * it; the reconciler tries again after 30 s, the lab after {@link #RETRY}.
   */
  private static final Duration CATCH_UP = Duration.ofSeconds(15);

  private static final Duration RETRY = Duration.ofSeconds(2);
  private static final Duration GIVE_UP = Duration.ofMinutes(15);
  private static final Duration SQL_TIMEOUT = Duration.ofSeconds(3);

  /** One backup asked for: the writes acknowledged before, and how its dump went. */
  static final class Asked {
    final int index;
    final SortedSet<Long> before;
    volatile String source;
    volatile String key;
    volatile String gtid;
    volatile String lastProblem = "not tried yet";
    volatile int attempts;

    Asked(int index, SortedSet<Long> before) {
      this.index = index;
      this.before = before;
    }

    boolean taken() {
      return key != null;
    }

    @Override
    public String toString() {
      return taken()
          ? "backup #" + index + " (dump of " + source + " at GTID " + gtid + ")"
          : "backup #"
              + index
              + " (not taken after "
              + attempts
              + " attempts: "
              + lastProblem
              + ")";
    }
  }

  private final LabOperator cluster;
  private final FileSystemBackupStore store;
  private final BackupSource fit;
  private final LogicalDump dump;
  private final Supplier<SortedSet<Long>> acknowledged;
  private final List<Asked> asked = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "lab-backup");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean stopped;

  /**
   * @param operatorAddress where the operator's SQL connections leave from (a lab can cut them);
   *     the dump client, as in the operator's Pod, leaves from the host's own address
   * @param acknowledged the writes acknowledged so far
   */
  LabBackups(LabOperator cluster, String operatorAddress, Supplier<SortedSet<Long>> acknowledged)
      throws IOException {
    this.cluster = cluster;
    this.store = new FileSystemBackupStore(Files.createTempDirectory("mysql-chaos-backups"));
    this.fit =
        new BackupSource(
            new MariaDbDialect("?localSocketAddress=" + operatorAddress),
            MariaDbServers.CREDENTIALS,
            SQL_TIMEOUT,
            CATCH_UP);
    this.dump = new LogicalDump(new MariaDbDialect(), MariaDbServers.CREDENTIALS, SQL_TIMEOUT);
    this.acknowledged = acknowledged;
  }

  /** Asks for a backup now; it is taken in the background, tried again until it is. */
  void ask(int index) {
    Asked a = new Asked(index, new TreeSet<>(acknowledged.get()));
    asked.add(a);
    // Bounded on its own too, should a failed schedule never call finish or close.
    long giveUpAt = System.nanoTime() + GIVE_UP.toNanos();
    worker.execute(() -> take(a, giveUpAt));
  }

  /** One attempt; another is scheduled {@link #RETRY} later until it is taken. */
  private void take(Asked a, long giveUpAt) {
    if (stopped || a.taken() || System.nanoTime() >= giveUpAt) {
      return;
    }
    a.attempts++;
    try {
      attempt(a);
    } catch (Exception | AssertionError e) {
      a.lastProblem = JobFailures.describe(e);
    }
    if (!a.taken() && !stopped) {
      try {
        worker.schedule(() -> take(a, giveUpAt), RETRY.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException stoppedMeanwhile) {
        // finish or close stopped the worker while this attempt ran: nothing more is tried.
      }
    }
  }

  private void attempt(Asked a) throws Exception {
    TopologyController.Tick t = cluster.last();
    if (t == null) {
      a.lastProblem = "no round yet";
      return;
    }
    MySQLBackupReconciler.Sources s =
        MySQLBackupReconciler.sources(
            LabClusterStatus.after(t, cluster.addresses(), cluster.desired()));
    if (s.problem() != null) {
      a.lastProblem = "the cluster " + s.problem();
      return;
    }
    BackupSource.Candidate from =
        fit.from(
            new BackupSource.Candidate(s.primary(), cluster.address(s.primary())),
            s.replicas().stream()
                .map(n -> new BackupSource.Candidate(n, cluster.address(n)))
                .toList(),
            s.verifiedStarts());
    String key = "backup-" + a.index + ".sql";
    LogicalDump.Result r = dump.dump(from.address(), store, key, new AtomicLong());
    a.source = from.name();
    a.gtid = r.gtid();
    a.key = key;
  }

  /**
   * Waits up to {@code bound} for every backup asked for to be taken (the cluster is steady now),
   * then stops trying; returns a line for each one still not taken.
   */
  List<String> finish(Duration bound) throws InterruptedException {
    try {
      await("every backup asked for taken")
          .atMost(bound)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> asked.stream().allMatch(Asked::taken));
    } catch (ConditionTimeoutException e) {
      // Each one not taken is reported below, with its last problem.
    }
    stopped = true;
    worker.shutdown();
    worker.awaitTermination(CATCH_UP.plusSeconds(30).toSeconds(), TimeUnit.SECONDS);
    List<String> out = new ArrayList<>();
    for (Asked a : asked) {
      if (!a.taken()) {
        out.add(a + ", although the cluster was steady for " + bound.toSeconds() + " s");
      }
    }
    return out;
  }

  /**
   * Restores each dump taken into a fresh server (one after the other, each load over the last) and
   * returns a line for each that lacks a write acknowledged before it was asked.
   */
  List<String> restoreEach(MariaDbServers fleet) throws Exception {
    List<String> broken = new ArrayList<>();
    List<Asked> taken = asked.stream().filter(Asked::taken).toList();
    if (taken.isEmpty()) {
      return broken;
    }
    MariaDbServers.Server restored = fleet.create("restored", 300).start();
    Address at = restored.address();
    AppClient.adminQuery(at, "SET GLOBAL read_only = 0");
    for (Asked a : taken) {
      if (a.gtid == null) {
        broken.add(a + ": the dump's GTID position was not found");
      }
      dump.load(store, a.key, at);
      Set<Long> present = new HashSet<>(AppClient.ids(at));
      SortedSet<Long> lacks = new TreeSet<>(a.before);
      lacks.removeAll(present);
      if (!lacks.isEmpty()) {
        broken.add(
            a
                + " restored lacks "
                + lacks.size()
                + " of the "
                + a.before.size()
                + " writes acknowledged before it was asked: "
                + lacks.stream().limit(20).toList());
      }
    }
    return broken;
  }

  /** The backups asked for, a line each. */
  List<String> lines() {
    return asked.stream().map(Asked::toString).toList();
  }

  int taken() {
    return (int) asked.stream().filter(Asked::taken).count();
  }

  @Override
  public void close() {
    stopped = true;
    worker.shutdownNow();
  }
}
