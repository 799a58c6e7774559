package dev.bosun.common.backup;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's backup volume, named alike by every operator: chart values {@code
 * backup.volume.*}, environment {@value #ENV}.
 */
public final class BackupVolume {

  private static final Logger LOG = LoggerFactory.getLogger(BackupVolume.class);

  /** The directory the backup volume is mounted at; unset: S3 backups only. */
  public static final String ENV = "BOSUN_BACKUP_DIR";

  /** How an administrator gives an operator its backup volume, as refusals name it. */
  public static final String HINT = "chart value backup.volume.enabled, environment " + ENV;

  private BackupVolume() {}

  /**
   * The directory {@code env} names in {@value #ENV}, else in the first of {@code deprecated} (an
   * operator's older name for it, still read, with a warning), if any.
   */
  public static Optional<Path> dir(Map<String, String> env, String... deprecated) {
    Optional<Path> dir = named(env, ENV);
    for (String old : deprecated) {
      if (dir.isPresent()) {
        break;
      }
      dir = named(env, old);
      dir.ifPresent(d -> LOG.warn("{} is deprecated: name the backup volume in {}", old, ENV));
    }
    return dir;
  }

  private static Optional<Path> named(Map<String, String> env, String name) {
    String value = env.getOrDefault(name, "").trim();
    return value.isEmpty() ? Optional.empty() : Optional.of(Path.of(value));
  }
}
