package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * An informer store that drops each object's managedFields, often the largest part of a Pod and
 * read by nothing here. Only for kinds the operator never compares by server-side-apply field
 * ownership (JOSDK's SSA matcher of managed dependents needs them).
 */
public final class TrimmedItemStore<T extends HasMetadata> extends BasicItemStore<T> {

  public TrimmedItemStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public T put(String key, T obj) {
    obj.getMetadata().setManagedFields(null);
    return super.put(key, obj);
  }
}
