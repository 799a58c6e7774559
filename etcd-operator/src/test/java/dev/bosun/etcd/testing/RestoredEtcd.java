package dev.bosun.etcd.testing;

import dev.bosun.common.testing.LocalProcess;
import dev.bosun.common.testing.ScratchDirectories;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A snapshot restored the way an operator of etcd does it by hand ({@code etcdctl snapshot
 * restore}) and served by a standalone etcd on its own loopback address, to read back every key.
 */
public final class RestoredEtcd implements AutoCloseable {

  private final LocalProcess process;
  private final URI client;
  private final Path dir;

  private RestoredEtcd(LocalProcess process, URI client, Path dir) {
    this.process = process;
    this.client = client;
    this.dir = dir;
  }

  /** Restores {@code snapshot} into a fresh data directory and starts etcd on it. */
  public static RestoredEtcd start(Path snapshot, String host) throws Exception {
    Path dir = Files.createTempDirectory("restored-etcd");
    String peer = "http://" + host + ":2380";
    String clientUrl = "http://" + host + ":2379";
    Process restore =
        new ProcessBuilder(
                "/usr/bin/etcdctl",
                "snapshot",
                "restore",
                snapshot.toString(),
                "--name=restored",
                "--data-dir=" + dir.resolve("data"),
                "--initial-cluster=restored=" + peer,
                "--initial-advertise-peer-urls=" + peer)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("restore.log").toFile())
            .start();
    if (!restore.waitFor(60, TimeUnit.SECONDS) || restore.exitValue() != 0) {
      throw new IOException(
          "etcdctl snapshot restore failed: " + Files.readString(dir.resolve("restore.log")));
    }
    LocalProcess etcd =
        LocalProcess.start(
            "restored-etcd",
            List.of(
                "/usr/bin/etcd",
                "--name=restored",
                "--data-dir=" + dir.resolve("data"),
                "--listen-peer-urls=" + peer,
                "--listen-client-urls=" + clientUrl,
                "--advertise-client-urls=" + clientUrl,
                "--initial-advertise-peer-urls=" + peer),
            dir.resolve("etcd.log"));
    etcd.awaitPort(host, 2379, Duration.ofSeconds(30));
    return new RestoredEtcd(etcd, URI.create(clientUrl), dir);
  }

  /** Every key under {@code prefix} with its value. */
  public Map<String, String> read(String prefix) throws Exception {
    try (Client c = Client.builder().endpoints(client).keepaliveWithoutCalls(false).build()) {
      var response =
          c.getKVClient()
              .get(
                  ByteSequence.from(prefix, StandardCharsets.UTF_8),
                  GetOption.builder().isPrefix(true).build())
              .get(30, TimeUnit.SECONDS);
      Map<String, String> result = new TreeMap<>();
      response
          .getKvs()
          .forEach(
              kv ->
                  result.put(
                      kv.getKey().toString(StandardCharsets.UTF_8),
                      kv.getValue().toString(StandardCharsets.UTF_8)));
      return result;
    }
  }

  @Override
  public void close() {
    process.stop();
    ScratchDirectories.deleteQuietly(dir);
  }
}
