package dev.bosun.etcd.testing;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client that keeps writing distinct keys and remembers every write etcd acknowledged, so a test
 * can check that none was lost. A write that fails may still have committed (ambiguous), so only
 * acknowledged ones are checked.
 */
public final class AckedWriter implements AutoCloseable {

  private final Client client;
  private final Map<String, String> acked = new ConcurrentHashMap<>();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;

  public AckedWriter(List<URI> endpoints) {
    this.client =
        Client.builder()
            .endpoints(endpoints.toArray(URI[]::new))
            .keepaliveWithoutCalls(false)
            .build();
    this.thread = new Thread(this::run, "acked-writer");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    int i = 0;
    while (running.get()) {
      String key = "key-%06d".formatted(i);
      String value = "value-" + i;
      try {
        client.getKVClient().put(bytes(key), bytes(value)).get(3, TimeUnit.SECONDS);
        acked.put(key, value);
      } catch (Exception e) {
        failed.incrementAndGet();
      }
      i++;
    }
  }

  public int acknowledged() {
    return acked.size();
  }

  public int failed() {
    return failed.get();
  }

  /** Stops writing and returns the acknowledged writes. */
  public Map<String, String> stop() throws InterruptedException {
    running.set(false);
    thread.join(Duration.ofSeconds(10).toMillis());
    return Map.copyOf(acked);
  }

  /** The value a linearizable read returns for each key (missing keys are absent). */
  public static Map<String, String> read(List<URI> endpoints, Iterable<String> keys)
      throws Exception {
    Map<String, String> found = new ConcurrentHashMap<>();
    try (Client reader =
        Client.builder()
            .endpoints(endpoints.toArray(URI[]::new))
            .keepaliveWithoutCalls(false)
            .build()) {
      var all =
          reader
              .getKVClient()
              .get(bytes("key-"), io.etcd.jetcd.options.GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS);
      all.getKvs()
          .forEach(
              kv ->
                  found.put(
                      kv.getKey().toString(StandardCharsets.UTF_8),
                      kv.getValue().toString(StandardCharsets.UTF_8)));
    }
    Map<String, String> result = new ConcurrentHashMap<>();
    for (String k : keys) {
      if (found.containsKey(k)) {
        result.put(k, found.get(k));
      }
    }
    return result;
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws InterruptedException {
    stop();
    client.close();
  }
}
