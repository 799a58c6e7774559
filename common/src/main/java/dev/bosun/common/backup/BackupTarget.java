package dev.bosun.common.backup;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** The store of one backup and the key prefix all of its objects (and only they) live under. */
public record BackupTarget(BackupStore store, String prefix) {

  private static final DateTimeFormatter KEY_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  /** The key of a backup taken at {@code at}: {@code <prefix><time>.<extension>}. */
  public String newKey(Instant at, String extension) {
    return prefix + KEY_TIME.format(at) + "." + extension;
  }

  /**
   * The name of an object this backup wrote ({@link #newKey}): another backup whose prefix lies
   * below this one's ({@code ns/a/} and {@code ns/a/b/}), or files another feature keeps there
   * (exported errant transactions), are never this backup's to list, load or prune.
   */
  private static final Pattern OWN_NAME =
      Pattern.compile("\\d{8}T\\d{6}Z\\.[A-Za-z0-9]+(\\.[A-Za-z0-9]+)*");

  /**
   * True when the key is one this backup wrote: directly under the prefix, named as {@link #newKey}
   * names them (retention deletes nothing else).
   */
  public boolean within(String key) {
    return key.startsWith(prefix) && OWN_NAME.matcher(key.substring(prefix.length())).matches();
  }

  /** This backup's stored objects, oldest first. */
  public List<StoredObject> list() throws IOException {
    List<StoredObject> mine = new ArrayList<>();
    for (StoredObject o : store.list(prefix)) {
      if (within(o.key())) {
        mine.add(o);
      }
    }
    mine.sort(Comparator.comparing(StoredObject::lastModified).thenComparing(StoredObject::key));
    return mine;
  }

  /** The newest stored object, if any. */
  public Optional<StoredObject> newest() throws IOException {
    List<StoredObject> all = list();
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  /**
   * The key a restore loads: {@code named} when given (it must be one of this backup's keys: the
   * store is shared by every backup of the volume or bucket), else the newest; empty when the
   * backup holds nothing yet.
   */
  public Optional<String> restoreKey(String named) throws IOException {
    if (named == null) {
      return newest().map(StoredObject::key);
    }
    if (!within(named)) {
      throw new IllegalArgumentException(
          named + " is not a key of this backup (its keys start with " + prefix + ")");
    }
    return Optional.of(named);
  }

  /**
   * Deletes the objects beyond the newest {@code keep} and returns the ones kept, oldest first, as
   * a status lists them.
   */
  public List<BackupRecord> retain(int keep) throws IOException {
    List<StoredObject> existing = list();
    List<StoredObject> expired = Retention.toDelete(existing, keep);
    for (StoredObject old : expired) {
      store.delete(old.key());
    }
    return existing.stream().filter(o -> !expired.contains(o)).map(BackupRecord::of).toList();
  }
}
