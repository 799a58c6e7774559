package dev.bosun.common.backup;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * One stored backup as every backup kind shows it in its status ({@code lastBackup} and the items
 * of {@code backups}); the generated status types use this type ({@code existingJavaTypes}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BackupRecord(
    String key,
    @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = "yyyy-MM-dd'T'HH:mm:ssXXX")
        ZonedDateTime time,
    Long size,
    String location) {

  /** A stored object taken at {@code time} (a backup's start, not its upload's end). */
  public static BackupRecord of(StoredObject stored, Instant time) {
    return new BackupRecord(
        stored.key(), time.atZone(ZoneOffset.UTC).withNano(0), stored.size(), stored.location());
  }

  /** A stored object as listed, timed by its last modification. */
  public static BackupRecord of(StoredObject stored) {
    return of(stored, stored.lastModified());
  }
}
