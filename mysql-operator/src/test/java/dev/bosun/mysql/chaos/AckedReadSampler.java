package dev.bosun.mysql.chaos;

import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.testing.AppClient;
import dev.bosun.mysql.testing.LabOperator;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Reads the recorded primary at a fixed interval while the schedule runs: when it takes writes, it
 * must hold every write acknowledged before the reading began. A lossy member promoted and handed
 * back later loses nothing at the end, but a client reading meanwhile misses its own write.
 */
final class AckedReadSampler implements AutoCloseable {

  private final LabOperator cluster;
  private final Supplier<SortedSet<Long>> acknowledged;
  private final AtomicLong samples = new AtomicLong();
  private final AtomicLong lacking = new AtomicLong();
  private final List<String> details = new ArrayList<>();
  private final long started = System.nanoTime();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "acked-read-sampler");
            t.setDaemon(true);
            return t;
          });

  /** Samples every {@code every} for at most {@code bound}. */
  AckedReadSampler(
      LabOperator cluster, Supplier<SortedSet<Long>> acknowledged, Duration every, Duration bound) {
    this.cluster = cluster;
    this.acknowledged = acknowledged;
    timer.scheduleWithFixedDelay(
        this::sample, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    timer.schedule(timer::shutdown, bound.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void sample() {
    // Acknowledged first, then the primary: the writers write where the record points, so every
    // write counted was acknowledged by this primary or one recorded before it.
    SortedSet<Long> before = acknowledged.get();
    String primary = cluster.record().primary();
    Address at = cluster.address(primary);
    if (at == null) {
      return;
    }
    try (Connection c = AppClient.admin(at);
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.read_only")) {
        if (!rs.next() || rs.getInt(1) != 0) {
          return;
        }
      }
      Set<Long> present = new HashSet<>();
      try (ResultSet rs = s.executeQuery("SELECT id FROM app.items")) {
        while (rs.next()) {
          present.add(rs.getLong(1));
        }
      }
      samples.incrementAndGet();
      SortedSet<Long> missing = new TreeSet<>(before);
      missing.removeAll(present);
      if (!missing.isEmpty()) {
        lacking.incrementAndGet();
        synchronized (details) {
          if (details.size() < 5) {
            details.add(
                String.format(
                    "t+%.1fs the writable primary %s lacked %d acknowledged rows %s",
                    (System.nanoTime() - started) / 1e9,
                    primary,
                    missing.size(),
                    missing.stream().limit(10).toList()));
          }
        }
      }
    } catch (java.sql.SQLException e) {
      // Down, frozen or not reachable: no reading, as no client reads there either.
    }
  }

  /** Readings of a writable primary so far. */
  long samples() {
    return samples.get();
  }

  /** Readings in which the writable primary lacked an acknowledged row. */
  long lacking() {
    return lacking.get();
  }

  List<String> details() {
    synchronized (details) {
      return List.copyOf(details);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
