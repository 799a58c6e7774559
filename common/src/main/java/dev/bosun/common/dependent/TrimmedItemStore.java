package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.List;
import java.util.Objects;

/**
 * An informer store that drops each object's managedFields, often the largest part of an object and
 * read by nothing here; or, for the managed dependents JOSDK's server-side-apply matcher compares,
 * every entry but the operator's own (the matcher reads only that one), whose field set is kept as
 * text ({@link CompactFieldsV1}). What is left is compacted ({@link CompactObjects}): shared copies
 * of its strings and of empty collections.
 */
public class TrimmedItemStore<T extends HasMetadata> extends BasicItemStore<T> {

  private final String keptManager;

  /** Drops all managedFields. */
  public TrimmedItemStore() {
    this(null);
  }

  /** Keeps only the managedFields entries of {@code keptManager}. */
  protected TrimmedItemStore(String keptManager) {
    super(Cache::metaNamespaceKeyFunc);
    this.keptManager = keptManager;
  }

  @Override
  public T put(String key, T obj) {
    var managed = obj.getMetadata().getManagedFields();
    if (keptManager == null || managed == null) {
      obj.getMetadata().setManagedFields(null);
    } else {
      List<ManagedFieldsEntry> before = ownEntries(get(key));
      obj.getMetadata()
          .setManagedFields(
              managed.stream()
                  .filter(m -> keptManager.equals(m.getManager()))
                  .map(m -> compact(m, before))
                  .toList());
    }
    CompactObjects.compact(obj);
    return super.put(key, obj);
  }

  private static List<ManagedFieldsEntry> ownEntries(HasMetadata stored) {
    return stored == null || stored.getMetadata().getManagedFields() == null
        ? List.of()
        : stored.getMetadata().getManagedFields();
  }

  /**
   * The entry with its field set as text; the stored object's text when it is the same (a status
   * update leaves the operator's fields as they were), so an unchanged set is held once.
   */
  private static ManagedFieldsEntry compact(
      ManagedFieldsEntry entry, List<ManagedFieldsEntry> before) {
    FieldsV1 fields = entry.getFieldsV1();
    if (fields == null || fields instanceof CompactFieldsV1) {
      return entry;
    }
    CompactFieldsV1 compact = new CompactFieldsV1(fields.getAdditionalProperties());
    entry.setFieldsV1(
        before.stream()
            .filter(b -> Objects.equals(b.getOperation(), entry.getOperation()))
            .map(ManagedFieldsEntry::getFieldsV1)
            .filter(compact::equals)
            .findFirst()
            .orElse(compact));
    return entry;
  }
}
