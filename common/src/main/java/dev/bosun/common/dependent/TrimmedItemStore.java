package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * An informer store that drops each object's managedFields, often the largest part of an object and
 * read by nothing here; or, for the managed dependents JOSDK's server-side-apply matcher compares,
 * every entry but the operator's own (the matcher reads only that one).
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
      obj.getMetadata()
          .setManagedFields(
              managed.stream().filter(m -> keptManager.equals(m.getManager())).toList());
    }
    return super.put(key, obj);
  }
}
