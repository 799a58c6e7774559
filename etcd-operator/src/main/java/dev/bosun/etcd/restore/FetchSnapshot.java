package dev.bosun.etcd.restore;

import dev.bosun.common.backup.S3BackupStore;
import dev.bosun.common.backup.S3Credentials;
import dev.bosun.common.backup.S3Location;
import dev.bosun.common.transfer.ArtifactDownload;
import dev.bosun.common.transfer.FetchArtifact;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * The first and last init containers of a member restored from a backup (the operator image, run
 * with this class as its main). {@code fetch} downloads the snapshot into the Pod's emptyDir, from
 * the S3-compatible store, or from the operator ({@link SnapshotRoute}, over HTTPS trusting only
 * the operator's CA) when {@value #URL} is set; {@code etcdctl snapshot restore} (the second init
 * container) turns it into a data directory in the emptyDir; {@code install} moves that onto the
 * member's volume unless the volume already has data. Every step can run again (a Pod sandbox
 * restart reruns init containers) without touching data that is already there.
 */
public final class FetchSnapshot {

  public static final String ENDPOINT = "BOSUN_RESTORE_S3_ENDPOINT";
  public static final String REGION = "BOSUN_RESTORE_S3_REGION";
  public static final String BUCKET = "BOSUN_RESTORE_S3_BUCKET";
  public static final String PATH_STYLE = "BOSUN_RESTORE_S3_PATH_STYLE";
  public static final String KEY = "BOSUN_RESTORE_KEY";
  public static final String ACCESS_KEY_ID = "BOSUN_RESTORE_ACCESS_KEY_ID";
  public static final String SECRET_ACCESS_KEY = "BOSUN_RESTORE_SECRET_ACCESS_KEY";

  /** The operator's HTTPS URL of the snapshot, for a snapshot on its backup volume. */
  public static final String URL = FetchArtifact.URL;

  /** The file holding the bearer token the operator expects (the restore Secret, mounted). */
  public static final String TOKEN_FILE = FetchArtifact.TOKEN_FILE;

  /** The file holding the operator's CA (PEM), the only CA the download trusts. */
  public static final String CA_FILE = FetchArtifact.CA_FILE;

  private FetchSnapshot() {}

  /** {@code fetch <target file>} or {@code install <restored dir> <data dir>}. */
  public static void main(String[] args) throws IOException {
    if (args.length == 2 && args[0].equals("fetch")) {
      fetch(System.getenv(), Path.of(args[1]));
    } else if (args.length == 3 && args[0].equals("install")) {
      install(Path.of(args[1]), Path.of(args[2]));
    } else {
      throw new IllegalArgumentException(
          "usage: FetchSnapshot fetch <target file> | install <restored dir> <data dir>");
    }
  }

  /** Moves the restored data directory into place, unless the volume already holds data. */
  static void install(Path restored, Path dataDir) throws IOException {
    if (Files.exists(dataDir)) {
      System.out.println("data directory " + dataDir + " exists: kept as it is");
      return;
    }
    Files.createDirectories(dataDir.toAbsolutePath().getParent());
    // The emptyDir and the volume are different file systems: copy, then switch by rename. A
    // staging folder left by an interrupted attempt is ours (never the member's data): start over.
    Path staging = dataDir.resolveSibling(dataDir.getFileName() + ".restoring");
    deleteRecursively(staging);
    try (var files = Files.walk(restored)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Path dest = staging.resolve(restored.relativize(source).toString());
        // Owner and mode as etcdctl wrote them (it runs as the member's user, this step as root),
        // so the member can open its data directory.
        Files.copy(source, dest, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
      }
    }
    Files.move(staging, dataDir, StandardCopyOption.ATOMIC_MOVE);
    System.out.println("installed the restored data directory at " + dataDir);
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  static void fetch(Map<String, String> env, Path target) throws IOException {
    fetch(env, target, ArtifactDownload::standard);
  }

  /**
   * Fetches into {@code target}: from the operator when {@value #URL} is set, with the download
   * {@code downloads} makes for a client trusting the operator's CA; else from S3.
   */
  static void fetch(
      Map<String, String> env, Path target, Function<SSLContext, ArtifactDownload> downloads)
      throws IOException {
    if (FetchArtifact.fromOperator(env)) {
      FetchArtifact.fetch(env, target, downloads);
      return;
    }
    S3Location location =
        new S3Location(
            URI.create(require(env, ENDPOINT)),
            require(env, REGION),
            require(env, BUCKET),
            "",
            Boolean.parseBoolean(env.getOrDefault(PATH_STYLE, "true")));
    S3BackupStore store =
        new S3BackupStore(
            location,
            new S3Credentials(require(env, ACCESS_KEY_ID), require(env, SECRET_ACCESS_KEY)));
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    // Whole or not at all: the restore container must never read a half-written snapshot.
    Path partial = dir.resolve(target.getFileName() + ".partial");
    try (InputStream in = store.read(require(env, KEY))) {
      long size = Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
      Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
      System.out.println("fetched " + size + " bytes of " + store.location(env.get(KEY)));
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  private static String require(Map<String, String> env, String name) {
    return FetchArtifact.require(env, name);
  }
}
