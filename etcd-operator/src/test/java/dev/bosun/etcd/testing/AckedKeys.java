package dev.bosun.etcd.testing;

import dev.bosun.common.testing.drill.AckedWriter;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Distinct keys {@code <cluster>/key-<n>} put by an acknowledged writer, and their read-back. */
public final class AckedKeys {

  private AckedKeys() {}

  /** A writer putting {@code <cluster>/key-<n> = value-<n>} every 20 ms, each put waited on. */
  public static AckedWriter writer(Client etcd, String cluster) {
    return AckedWriter.start(
        cluster + "-writer",
        seq ->
            etcd.getKVClient()
                .put(bytes(cluster + "/key-" + seq), bytes("value-" + seq))
                .get(3, TimeUnit.SECONDS),
        Duration.ofMillis(20),
        20_000,
        Duration.ofMinutes(5));
  }

  /** How many acknowledged keys cannot be read back with their value (a linearizable read). */
  public static long lost(Client etcd, String cluster, SortedSet<Long> acked) throws Exception {
    Map<String, String> read =
        etcd
            .getKVClient()
            .get(bytes(cluster + "/key-"), GetOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS)
            .getKvs()
            .stream()
            .collect(
                Collectors.toMap(
                    kv -> kv.getKey().toString(StandardCharsets.UTF_8),
                    kv -> kv.getValue().toString(StandardCharsets.UTF_8)));
    return acked.stream()
        .filter(seq -> !("value-" + seq).equals(read.get(cluster + "/key-" + seq)))
        .count();
  }

  public static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
