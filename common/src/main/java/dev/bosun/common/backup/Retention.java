package dev.bosun.common.backup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/** Which backups a "keep the newest N" retention policy removes. */
public final class Retention {

  private Retention() {}

  /**
   * The objects beyond the newest {@code keep}, oldest last-modified first (ties broken by key), so
   * a caller that stops half-way has removed only the oldest.
   */
  public static List<StoredObject> toDelete(List<StoredObject> existing, int keep) {
    if (keep < 1) {
      throw new IllegalArgumentException("retention must keep at least one backup, not " + keep);
    }
    Comparator<StoredObject> newestFirst =
        Comparator.comparing(StoredObject::lastModified)
            .thenComparing(StoredObject::key)
            .reversed();
    List<StoredObject> sorted = existing.stream().sorted(newestFirst).toList();
    if (sorted.size() <= keep) {
      return List.of();
    }
    List<StoredObject> beyond = new ArrayList<>(sorted.subList(keep, sorted.size()));
    Collections.reverse(beyond);
    return List.copyOf(beyond);
  }
}
