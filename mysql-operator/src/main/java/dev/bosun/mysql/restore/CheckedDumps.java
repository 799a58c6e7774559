package dev.bosun.mysql.restore;

import dev.bosun.common.backup.BackupStore;
import dev.bosun.mysql.backup.LogicalDump;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.InstanceException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dumps this operator offers to restore Jobs: fetched from the tenant's store and checked
 * ({@link LogicalDump#writeLoadable}: a dump holding a client command is refused whole, naming the
 * line), kept in a private directory of the operator's container while their restore runs. One
 * restore prepares its dump once; a request arriving while it is being prepared waits for it.
 * Closed with the operator: a tenant's data is not left behind in the container's or a test
 * machine's temporary directory.
 */
public final class CheckedDumps implements AutoCloseable {

  private final Path dir;
  private final Map<String, Object> locks = new ConcurrentHashMap<>();

  /** Dumps kept under a new private temporary directory. */
  public CheckedDumps() {
    try {
      this.dir =
          Files.createTempDirectory(
              "bosun-checked-dumps-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a directory for checked dumps", e);
    }
  }

  /**
   * The checked dump {@code key} of {@code store} for the restore {@code restore}, prepared now
   * unless it already is.
   *
   * @throws InstanceException when the dump holds a client command (the message names the line)
   */
  public Path prepare(String restore, BackupStore store, String key, SqlDialect dialect)
      throws IOException, InstanceException {
    synchronized (locks.computeIfAbsent(restore, r -> new Object())) {
      Path file = dir.resolve(hash(restore) + "-" + hash(key) + ".sql");
      if (Files.exists(file)) {
        return file;
      }
      Path partial = Files.createTempFile(dir, "partial-", ".sql");
      try {
        LogicalDump.writeLoadable(store, key, dialect, partial);
        // Whole or not at all: the route serves only a file that was checked to its end.
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        return file;
      } finally {
        Files.deleteIfExists(partial);
      }
    }
  }

  /** Deletes the dumps of {@code restore}: its load finished, or was given up. */
  public void forget(String restore) {
    String prefix = hash(restore) + "-";
    synchronized (locks.computeIfAbsent(restore, r -> new Object())) {
      try (var files = Files.list(dir)) {
        for (Path f : files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList()) {
          Files.deleteIfExists(f);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the checked dumps of a restore", e);
      }
    }
    locks.remove(restore);
  }

  private static String hash(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** Deletes every dump kept and the directory: the operator stops. */
  @Override
  public void close() throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(dir);
  }
}
