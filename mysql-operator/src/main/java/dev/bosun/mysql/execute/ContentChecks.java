package dev.bosun.mysql.execute;

import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.plan.Address;
import dev.bosun.mysql.plan.ContentState;
import dev.bosun.mysql.plan.Step;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cluster's data comparisons in this operator process: pinned in the round that plans one (an
 * instant), compared on a thread of its own, and picked up by a later round. One at a time; a
 * replica whose comparison could not be made rests {@link #RETRY_AFTER} before it is tried again,
 * and the others may be compared meanwhile (chaos seed 397249: a replica still catching up failed
 * its comparisons for 40 s while another, which had lost a row, waited behind it).
 */
public final class ContentChecks {

  private static final Logger LOG = LoggerFactory.getLogger(ContentChecks.class);

  /** How long after a comparison that could not be made the next one may start. */
  static final Duration RETRY_AFTER = Duration.ofSeconds(30);

  /** How long the replica's applier may take to reach the primary's snapshot. */
  static final Duration APPLY_WAIT = Duration.ofSeconds(2);

  /** How long one table's scan may take on one side. */
  static final Duration SCAN_BOUND = Duration.ofHours(1);

  private final ContentCheck check;
  private final Clock clock;
  private String running;
  private ContentState.Finished finished;
  private final Map<String, Instant> resting = new HashMap<>();

  /** The comparisons of one cluster of one flavour. */
  public ContentChecks(SqlDialect dialect, Credentials credentials, Duration timeout, Clock clock) {
    this.check = new ContentCheck(dialect, credentials, timeout);
    this.clock = clock;
  }

  /** The replica being compared now, or null. */
  public synchronized String running() {
    return running;
  }

  /** The replicas whose last comparison could not be made and that wait to be tried again. */
  public synchronized Set<String> resting() {
    Instant now = clock.instant();
    resting.values().removeIf(until -> !now.isBefore(until));
    return Set.copyOf(resting.keySet());
  }

  /** A comparison that ended and is not recorded yet, or null. */
  public synchronized ContentState.Finished finished() {
    return finished;
  }

  /** Pins the two members now and compares them in the background. */
  void start(Step.CheckContent c, Address replica, Address primary) {
    ContentCheck.Pinned pinned;
    try {
      pinned = check.pin(replica, primary, APPLY_WAIT);
    } catch (InstanceException | RuntimeException e) {
      end(new ContentState.Finished(c, null, String.valueOf(e.getMessage()), null));
      return;
    }
    synchronized (this) {
      running = c.replica();
    }
    // A thread per comparison: they are rare (after a restart), and none is left behind when the
    // cluster goes.
    Thread t = new Thread(() -> compare(c, pinned), "content-check-" + c.replica());
    t.setDaemon(true);
    t.start();
  }

  private void compare(Step.CheckContent c, ContentCheck.Pinned pinned) {
    try (pinned) {
      ContentCheck.Result r = check.compare(pinned, SCAN_BOUND);
      String summary =
          r.tables()
              + (r.tables() == 1 ? " table, " : " tables, ")
              + r.rows()
              + " rows on the primary at "
              + pinned.position
              + (r.skipped().isEmpty()
                  ? ""
                  : "; not compared (no snapshot reads): " + String.join(", ", r.skipped()));
      end(
          new ContentState.Finished(
              c,
              r.differences().isEmpty() ? null : String.join("; ", r.differences()),
              null,
              summary,
              r.differences().isEmpty()
                  ? null
                  : r.replicaOnlyLacks()
                      ? ContentState.Finished.REPLICA
                      : r.primaryOnlyLacks() ? ContentState.Finished.PRIMARY : null));
    } catch (InstanceException | RuntimeException e) {
      end(new ContentState.Finished(c, null, String.valueOf(e.getMessage()), null));
    }
  }

  private synchronized void end(ContentState.Finished f) {
    if (f.failure() != null) {
      LOG.info(
          "comparing {} with {} did not work: {}",
          f.check().replica(),
          f.check().primary(),
          f.failure());
    }
    running = null;
    finished = f;
  }

  /** Forgets a finished comparison once it is recorded. */
  synchronized void forget() {
    if (finished != null && finished.failure() != null) {
      resting.put(finished.check().replica(), clock.instant().plus(RETRY_AFTER));
    }
    finished = null;
  }
}
