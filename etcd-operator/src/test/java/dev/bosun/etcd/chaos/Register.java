package dev.bosun.etcd.chaos;

import static dev.bosun.etcd.testing.AckedKeys.bytes;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A single-key register: one client puts increasing values (each only over a smaller one, so a put
 * that timed out and commits late cannot move it back) and reads it, a second client only reads it.
 * A read going back in time is one below the client's previous read or below the highest value
 * acknowledged before the read began (etcd reads are linearizable).
 */
final class Register implements AutoCloseable {

  private final String key;
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong reads = new AtomicLong();
  private final List<String> backInTime = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch stop = new CountDownLatch(1);
  private final List<Thread> threads = new ArrayList<>();

  private Register(String key) {
    this.key = key;
  }

  /** Starts the writing client on {@code writer} and the reading one on {@code reader}. */
  static Register start(String key, Client writer, Client reader, Duration longest)
      throws Exception {
    Register r = new Register(key);
    // A value compare on a missing key always fails: the register starts at zero.
    writer
        .getKVClient()
        .put(bytes(key), bytes(String.format("%019d", 0)))
        .get(10, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + longest.toNanos();
    r.threads.add(new Thread(() -> r.write(writer, deadline), key + "-writer"));
    r.threads.add(new Thread(() -> r.read(reader, deadline), key + "-reader"));
    r.threads.forEach(Thread::start);
    return r;
  }

  /** The highest value acknowledged so far. */
  long acknowledged() {
    return acknowledged.get();
  }

  long reads() {
    return reads.get();
  }

  /** Every read that went back in time, described. */
  List<String> backInTime() {
    synchronized (backInTime) {
      return List.copyOf(backInTime);
    }
  }

  /** The register's value now, by a linearizable read through {@code client}. */
  long value(Client client) throws Exception {
    var kvs = client.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs();
    return kvs.isEmpty()
        ? 0
        : Long.parseLong(kvs.get(0).getValue().toString(StandardCharsets.UTF_8));
  }

  private void write(Client client, long deadline) {
    long last = 0;
    for (long next = 1; running(deadline); next++) {
      try {
        String padded = String.format("%019d", next);
        boolean applied =
            client
                .getKVClient()
                .txn()
                .If(new Cmp(bytes(key), Cmp.Op.LESS, CmpTarget.value(bytes(padded))))
                .Then(Op.put(bytes(key), bytes(padded), PutOption.DEFAULT))
                .commit()
                .get(3, TimeUnit.SECONDS)
                .isSucceeded();
        if (applied) {
          acknowledged.accumulateAndGet(next, Math::max);
        }
        last = check("writer", client, last);
      } catch (Exception unavailable) {
        // Unavailability is measured elsewhere; a failed put is neither acknowledged nor lost.
      }
    }
  }

  private void read(Client client, long deadline) {
    long last = 0;
    while (running(deadline)) {
      try {
        last = check("reader", client, last);
      } catch (Exception unavailable) {
        // As above: only acknowledged answers count.
      }
    }
  }

  /** One read: records it if it went back in time, returns the newest value this client saw. */
  private long check(String who, Client client, long last) throws Exception {
    long floor = acknowledged.get();
    long read = value(client);
    reads.incrementAndGet();
    if (read < last) {
      backInTime.add(who + " read " + read + " after reading " + last);
    } else if (read < floor) {
      backInTime.add(who + " read " + read + " after " + floor + " was acknowledged");
    }
    return Math.max(last, read);
  }

  /** Paces the loops (20 ms) and ends them at {@link #close} or the deadline. */
  private boolean running(long deadline) {
    try {
      return !stop.await(20, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.countDown();
    for (Thread t : threads) {
      t.join(Duration.ofSeconds(15).toMillis());
    }
  }
}
