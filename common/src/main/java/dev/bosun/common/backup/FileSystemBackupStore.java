package dev.bosun.common.backup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Backups in a directory, typically a PersistentVolumeClaim mounted into the operator's pod. Each
 * write goes to a hidden temporary file that is renamed into place once complete.
 */
public final class FileSystemBackupStore implements BackupStore {

  private static final String PARTIAL = ".partial-";
  private final Path root;

  public FileSystemBackupStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  @Override
  public StoredObject write(String key, InputStream content) throws IOException {
    Path target = resolve(key);
    Files.createDirectories(target.getParent());
    Path partial = Files.createTempFile(target.getParent(), PARTIAL, ".tmp");
    try {
      Files.copy(content, partial, StandardCopyOption.REPLACE_EXISTING);
      try {
        Files.move(
            partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(partial);
    }
    return describe(key, target);
  }

  @Override
  public InputStream read(String key) throws IOException {
    return Files.newInputStream(resolve(key));
  }

  @Override
  public List<StoredObject> list(String prefix) throws IOException {
    String p = BackupKeys.validatePrefix(prefix);
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    List<StoredObject> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        String key = root.relativize(file).toString().replace('\\', '/');
        if (key.startsWith(p) && !file.getFileName().toString().startsWith(PARTIAL)) {
          found.add(describe(key, file));
        }
      }
    }
    found.sort(Comparator.comparing(StoredObject::key));
    return found;
  }

  @Override
  public void delete(String key) throws IOException {
    Files.deleteIfExists(resolve(key));
  }

  @Override
  public String location(String key) {
    return "file:" + resolve(key);
  }

  private Path resolve(String key) {
    Path path = root.resolve(BackupKeys.validate(key)).normalize();
    if (!path.startsWith(root)) {
      throw new IllegalArgumentException("backup key escapes the store: " + key);
    }
    return path;
  }

  private StoredObject describe(String key, Path file) throws IOException {
    try {
      BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
      return new StoredObject(
          key, attrs.size(), attrs.lastModifiedTime().toInstant(), location(key));
    } catch (NoSuchFileException gone) {
      throw new IOException("backup " + key + " disappeared while being listed", gone);
    }
  }
}
