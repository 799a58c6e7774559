package dev.bosun.etcd.backup;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.common.backup.StoredObject;
import dev.bosun.etcd.client.EtcdException;
import dev.bosun.etcd.client.EtcdMembership;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes a snapshot through the maintenance API of the first member that delivers one, spooled to a
 * temporary file (a store write needs the size up front, and a half-sent snapshot must never become
 * a stored backup), then writes it to the store.
 */
public final class SnapshotTaker {

  static final Duration SNAPSHOT_TIMEOUT = Duration.ofMinutes(5);

  private final EtcdMembership etcd;

  public SnapshotTaker(EtcdMembership etcd) {
    this.etcd = etcd;
  }

  /** A stored snapshot and the revision the member served just before it was taken. */
  public record Snapshot(StoredObject stored, long revision) {}

  public Snapshot take(List<URI> endpoints, BackupStore store, String key) throws IOException {
    return take(endpoints, store, key, new AtomicLong());
  }

  /** The same, counting the bytes received from etcd into {@code bytes} as they arrive. */
  public Snapshot take(List<URI> endpoints, BackupStore store, String key, AtomicLong bytes)
      throws IOException {
    EtcdException last = null;
    for (URI endpoint : endpoints) {
      Path spool = Files.createTempFile("etcd-snapshot", ".db");
      try {
        long revision = etcd.revision(endpoint);
        bytes.set(0);
        try (OutputStream out = counting(Files.newOutputStream(spool), bytes)) {
          etcd.snapshot(endpoint, out, SNAPSHOT_TIMEOUT);
        }
        try (InputStream in = Files.newInputStream(spool)) {
          return new Snapshot(store.write(key, in), revision);
        }
      } catch (EtcdException e) {
        last = e;
      } finally {
        Files.deleteIfExists(spool);
      }
    }
    throw new UncheckedIOException(
        new IOException(
            "no member delivered a snapshot" + (last == null ? "" : ": " + last.getMessage()),
            last));
  }

  private static OutputStream counting(OutputStream out, AtomicLong bytes) {
    return new FilterOutputStream(out) {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        bytes.addAndGet(len);
      }

      @Override
      public void write(int b) throws IOException {
        out.write(b);
        bytes.incrementAndGet();
      }
    };
  }
}
