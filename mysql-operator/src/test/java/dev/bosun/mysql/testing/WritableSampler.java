package dev.bosun.mysql.testing;

import dev.bosun.mysql.plan.Address;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples which members are writable, at a fixed interval, and keeps the most writable at once and
 * the samples with two or more.
 *
 * <p>With {@code receiverRequired} a member counts as writable only if it accepts writes (read_only
 * off) and, when semi-sync is on there, some other member's receiver is connected to it: without
 * one, a commit waits for an acknowledgement that never comes and nothing is acknowledged to a
 * client, so an old primary that lost its replicas is no second primary. The receivers are read
 * from the replicas' side ({@code SHOW SLAVE STATUS}), since a primary counts a receiver that went
 * away as connected until its next heartbeat. A sample reads the members one after another, so it
 * can see one member before a fence and another after the promotion that followed: a sample with
 * two writable members counts as unsafe only if a second reading right after it shows two as well.
 */
public final class WritableSampler {

  /** What one reading of one member showed. */
  private record Reading(boolean readOnly, boolean semiSync, String receivingFrom) {}

  private final Map<String, Address> members;
  private final boolean receiverRequired;
  private final AtomicInteger max = new AtomicInteger();
  private final AtomicLong samples = new AtomicLong();
  private final AtomicLong unsafe = new AtomicLong();
  private final List<String> unsafeSamples = new ArrayList<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "writable-sampler");
            t.setDaemon(true);
            return t;
          });

  /**
   * Starts sampling {@code members} every {@code every} for at most {@code bound} (a test that
   * forgets to stop it cannot leave it running).
   */
  public WritableSampler(
      Map<String, Address> members, boolean receiverRequired, Duration every, Duration bound) {
    this.members = Map.copyOf(members);
    this.receiverRequired = receiverRequired;
    timer.scheduleWithFixedDelay(this::sample, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    timer.schedule(timer::shutdown, bound.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The drills' sampler: read_only off is writable, every 100 ms for at most 4 minutes. */
  public static WritableSampler readOnlyOff(Map<String, Address> members) {
    return new WritableSampler(members, false, Duration.ofMillis(100), Duration.ofMinutes(4));
  }

  private void sample() {
    List<String> first = writable();
    samples.incrementAndGet();
    max.accumulateAndGet(first.size(), Math::max);
    if (first.size() < 2) {
      return;
    }
    List<String> second = writable();
    if (second.size() >= 2) {
      unsafe.incrementAndGet();
      synchronized (unsafeSamples) {
        if (unsafeSamples.size() < 10) {
          unsafeSamples.add(System.currentTimeMillis() + " ms: " + first + ", then " + second);
        }
      }
    }
  }

  /** The members writable in one reading of every member. */
  private List<String> writable() {
    Map<String, Reading> readings = new LinkedHashMap<>();
    members.forEach((name, a) -> readings.put(name, read(a)));
    List<String> writable = new ArrayList<>();
    readings.forEach(
        (name, r) -> {
          if (r == null || r.readOnly()) {
            return;
          }
          String host = members.get(name).host();
          boolean received =
              readings.entrySet().stream()
                  .anyMatch(
                      o ->
                          !o.getKey().equals(name)
                              && o.getValue() != null
                              && host.equals(o.getValue().receivingFrom()));
          if (!receiverRequired || !r.semiSync() || received) {
            writable.add(name);
          }
        });
    return writable;
  }

  /** One member's reading, or null if it did not answer in time. */
  private static Reading read(Address a) {
    Properties p = new Properties();
    p.setProperty("user", MariaDbServers.CREDENTIALS.operatorUser());
    p.setProperty("password", MariaDbServers.CREDENTIALS.operatorPassword());
    p.setProperty("connectTimeout", "300");
    p.setProperty("socketTimeout", "500");
    try (Connection c =
            DriverManager.getConnection("jdbc:mariadb://" + a.host() + ":" + a.port() + "/", p);
        Statement s = c.createStatement()) {
      boolean readOnly;
      boolean semiSync;
      try (ResultSet rs =
          s.executeQuery("SELECT @@GLOBAL.read_only, @@GLOBAL.rpl_semi_sync_master_enabled")) {
        rs.next();
        readOnly = rs.getInt(1) != 0;
        semiSync = rs.getInt(2) != 0;
      }
      String from = null;
      try (ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
        if (rs.next() && "Yes".equals(rs.getString("Slave_IO_Running"))) {
          from = rs.getString("Master_Host");
        }
      }
      return new Reading(readOnly, semiSync, from);
    } catch (Exception unreachable) {
      return null;
    }
  }

  /** The most members writable in one sample. */
  public int maxWritable() {
    return max.get();
  }

  /** Samples taken so far. */
  public long samples() {
    return samples.get();
  }

  /** Samples with two writable members, confirmed by a second reading. */
  public long unsafeSamples() {
    return unsafe.get();
  }

  /** The first unsafe samples: when, and which members each reading found writable. */
  public List<String> unsafeDetails() {
    synchronized (unsafeSamples) {
      return List.copyOf(unsafeSamples);
    }
  }

  /** Stops sampling; a sample under way ends first (it could otherwise see a later state). */
  public void stop() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
