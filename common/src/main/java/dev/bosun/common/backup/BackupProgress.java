package dev.bosun.common.backup;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * The backup being taken now, as every backup kind shows it in {@code status.inProgress}; the
 * generated status types use this type ({@code existingJavaTypes}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BackupProgress(
    @JsonFormat(shape = JsonFormat.Shape.STRING, pattern = "yyyy-MM-dd'T'HH:mm:ssXXX")
        ZonedDateTime startedAt,
    String key,
    Long bytes) {

  /** A backup started at {@code startedAt} into {@code key}, {@code bytes} taken so far. */
  public static BackupProgress of(Instant startedAt, String key, long bytes) {
    return new BackupProgress(startedAt.atZone(ZoneOffset.UTC).withNano(0), key, bytes);
  }
}
