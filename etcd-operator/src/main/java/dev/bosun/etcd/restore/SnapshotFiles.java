package dev.bosun.etcd.restore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which file of the operator's backup directory a restore may read: only a regular file under
 * {@code <backup dir>/<namespace>/}, named by a relative key without {@code .} or {@code ..}
 * segments, whose real path (every symbolic link followed) is still below the real {@code <backup
 * dir>/<namespace>}. Anything else is no file at all.
 */
public final class SnapshotFiles {

  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private SnapshotFiles() {}

  /** The real path of {@code key} under {@code root}, if it is a file of {@code namespace}. */
  public static Optional<Path> resolve(Path root, String namespace, String key) {
    if (namespace == null || !NAMESPACE.matcher(namespace).matches() || key == null) {
      return Optional.empty();
    }
    Path relative;
    try {
      relative = Path.of(key);
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
    if (key.isBlank() || relative.isAbsolute() || relative.getRoot() != null) {
      return Optional.empty();
    }
    for (Path segment : relative) {
      String s = segment.toString();
      if (s.equals("..") || s.equals(".") || s.isEmpty()) {
        return Optional.empty();
      }
    }
    if (relative.getNameCount() < 2 || !relative.getName(0).toString().equals(namespace)) {
      return Optional.empty();
    }
    try {
      // Compared with the real root plus the namespace, not with the namespace directory's own
      // real path: a namespace directory that is itself a link to another one must not count.
      Path allowed = root.toRealPath().resolve(namespace);
      Path real = root.resolve(relative).toRealPath();
      if (!real.startsWith(allowed) || real.equals(allowed) || !Files.isRegularFile(real)) {
        return Optional.empty();
      }
      return Optional.of(real);
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }
}
