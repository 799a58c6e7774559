package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.Map;

/**
 * Makes a cached object's metadata strings the JVM's one copy of each (the interned string, which
 * the JVM frees once nothing holds it). A WebService's name stands in its own metadata, in its
 * children's names, labels and owner references and in their Pods' labels; the namespace, the label
 * values and the owner kinds in every object of an informer cache. Each read from a watch event is
 * a new copy: held in caches of thousands of objects, the copies were a good part of an operator's
 * heap. Values that differ in every object (uid, resourceVersion) and long ones are left as they
 * are.
 */
final class SharedStrings {

  /** Longer annotation values (a last-applied configuration) are rarely shared. */
  private static final int LONGEST_SHARED = 253;

  private SharedStrings() {}

  /** Replaces the metadata's strings with their shared copies, in place. */
  static void share(ObjectMeta meta) {
    if (meta == null) {
      return;
    }
    meta.setName(shared(meta.getName()));
    meta.setNamespace(shared(meta.getNamespace()));
    meta.setGenerateName(shared(meta.getGenerateName()));
    meta.setCreationTimestamp(shared(meta.getCreationTimestamp()));
    shareValues(meta.getLabels());
    shareValues(meta.getAnnotations());
    if (meta.getOwnerReferences() != null) {
      for (OwnerReference owner : meta.getOwnerReferences()) {
        owner.setApiVersion(shared(owner.getApiVersion()));
        owner.setKind(shared(owner.getKind()));
        owner.setName(shared(owner.getName()));
        owner.setUid(shared(owner.getUid()));
      }
    }
    if (meta.getManagedFields() != null) {
      for (ManagedFieldsEntry entry : meta.getManagedFields()) {
        entry.setManager(shared(entry.getManager()));
        entry.setOperation(shared(entry.getOperation()));
        entry.setApiVersion(shared(entry.getApiVersion()));
        entry.setFieldsType(shared(entry.getFieldsType()));
        entry.setTime(shared(entry.getTime()));
      }
    }
  }

  /** The shared copy of {@code s}, or {@code s} itself when it is long or null. */
  static String shared(String s) {
    return s == null || s.length() > LONGEST_SHARED ? s : s.intern();
  }

  private static void shareValues(Map<String, String> map) {
    if (map != null) {
      map.replaceAll((k, v) -> shared(v));
    }
  }
}
