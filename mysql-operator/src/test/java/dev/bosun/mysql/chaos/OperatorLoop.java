package dev.bosun.mysql.chaos;

import dev.bosun.mysql.execute.TopologyController;
import dev.bosun.mysql.plan.StepText;
import dev.bosun.mysql.testing.LabOperator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The operator as a process: a thread that ticks a {@link TopologyController} every 200 ms for the
 * whole schedule. A restart replaces the controller (a new process; the record it starts from is
 * what the last one stored, as status keeps it); an operator set to die at a failover boundary
 * throws there, mid-step, and is replaced the same way.
 */
final class OperatorLoop implements AutoCloseable {

  /** The operator process dying at a failover boundary. */
  static final class OperatorDied extends RuntimeException {
    OperatorDied(String boundary) {
      super("operator died at " + boundary);
    }
  }

  private static final long ROUND_MILLIS = 200;
  private static final int LOG_LINES = 200;

  private final LabOperator cluster;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final List<String> log = new ArrayList<>();
  private final long start = System.nanoTime();
  private final Thread thread;
  private volatile boolean restart;
  private volatile String dieAt;
  private String lastLine;
  private final List<String> primaries = new ArrayList<>();

  OperatorLoop(LabOperator cluster) {
    this.cluster = cluster;
    this.thread = new Thread(this::run, "lab-operator");
    thread.setDaemon(true);
    thread.start();
  }

  /** The next round runs in a new operator process. */
  void restart() {
    restart = true;
  }

  /** The operator process dies when it next reaches {@code boundary} (null: it does not). */
  void dieAt(String boundary) {
    dieAt = boundary;
  }

  private TopologyController fresh() {
    return cluster.controller(
        b -> {
          String at = dieAt;
          if (b.equals(at)) {
            dieAt = null;
            throw new OperatorDied(b);
          }
        });
  }

  private void run() {
    TopologyController c = fresh();
    // Bounded: a test that forgets to close it cannot leave it running.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (stopping.getCount() > 0 && System.nanoTime() < deadline) {
      if (restart) {
        restart = false;
        c = fresh();
        note("operator restarted");
      }
      try {
        TopologyController.Tick t = cluster.tick(c);
        primary(t.record().primary());
        note(
            "primary "
                + t.record().primary()
                + ": "
                + StepText.sentence(t.plan().step(), t.error() == null ? "" : t.error()));
      } catch (OperatorDied d) {
        note(d.getMessage() + "; a new operator starts from the stored record");
        c = fresh();
      } catch (RuntimeException e) {
        note("round failed: " + e.getMessage());
      }
      try {
        if (stopping.await(ROUND_MILLIS, TimeUnit.MILLISECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Notes the recorded primary when it changed (null: none recorded, as after a re-create). */
  private synchronized void primary(String name) {
    String now = String.valueOf(name);
    if (primaries.isEmpty() || !primaries.get(primaries.size() - 1).endsWith(" " + now)) {
      primaries.add(String.format("t+%.1fs %s", (System.nanoTime() - start) / 1e9, now));
    }
  }

  /** The recorded primaries in turn, each with when this loop first saw it. */
  synchronized List<String> primaries() {
    return List.copyOf(primaries);
  }

  /** Notes a line unless it repeats the last one. */
  private synchronized void note(String line) {
    if (line.equals(lastLine)) {
      return;
    }
    lastLine = line;
    if (log.size() < LOG_LINES * 5) {
      log.add(String.format("t+%.1fs %s", (System.nanoTime() - start) / 1e9, line));
    }
  }

  /** The noted rounds whose line mentions {@code word}, in order. */
  synchronized List<String> linesWith(String word) {
    return log.stream().filter(l -> l.contains(word)).toList();
  }

  /** The operator's rounds that differed from the one before, the last ones first cut. */
  synchronized String logText() {
    int from = Math.max(0, log.size() - LOG_LINES);
    return String.join("\n", log.subList(from, log.size()));
  }

  @Override
  public void close() throws InterruptedException {
    stopping.countDown();
    thread.join(TimeUnit.SECONDS.toMillis(30));
  }
}
