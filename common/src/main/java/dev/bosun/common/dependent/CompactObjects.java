package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Makes a cached object smaller in place, all the way down its model tree: each string becomes the
 * JVM's one copy of it (the interned string, freed once nothing holds it), each empty map or list
 * one shared empty collection, and each list only as long as its items.
 *
 * <p>Why: a watch event is read into a new object tree with a new copy of every string, and every
 * fabric8 model object carries a map of unknown fields (empty, but 56 bytes) and empty lists for
 * the list fields its JSON left out. A Deployment is some forty such objects. In a cache of
 * thousands, the copies of "TCP", "IfNotPresent", a namespace, a WebService's name (in its
 * children's names, labels, selectors and owner references), the condition reasons and timestamps,
 * and the empty collections were a good part of an operator's heap.
 *
 * <p>Cached objects are read, never changed: JOSDK hands a reconciler a copy of its primary, and a
 * secondary from a cache is only read. The shared empty collections refuse a change, so a change of
 * a cached object by mistake fails loudly instead of corrupting the cache.
 */
final class CompactObjects {

  /** Longer values (a last-applied configuration, a certificate) are rarely shared. */
  static final int LONGEST_SHARED = 253;

  /** Deeper trees than any Kubernetes object's are not walked (a guard against cycles). */
  private static final int DEEPEST = 64;

  private static final ClassValue<List<Field>> FIELDS =
      new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> type) {
          return walkedFields(type);
        }
      };

  private CompactObjects() {}

  /** Compacts {@code object}'s tree in place. */
  static void compact(Object object) {
    compact(object, 0);
  }

  /** The shared copy of {@code s}, or {@code s} itself when it is long or null. */
  static String shared(String s) {
    return s == null || s.length() > LONGEST_SHARED ? s : s.intern();
  }

  private static void compact(Object object, int depth) {
    if (object == null || depth > DEEPEST || object instanceof CompactFieldsV1) {
      return;
    }
    if (object instanceof Map<?, ?> map) {
      compactEntries(map, depth);
    } else if (object instanceof List<?> list) {
      compactItems(list, depth);
    } else if (object instanceof KubernetesResource) {
      compactFields(object, depth);
    }
  }

  private static void compactFields(Object object, int depth) {
    for (Field field : FIELDS.get(object.getClass())) {
      try {
        Object value = field.get(object);
        Object smaller = smaller(value);
        if (smaller != value && field.getType().isInstance(smaller)) {
          field.set(object, smaller);
          value = smaller;
        }
        compact(value, depth + 1);
      } catch (IllegalAccessException e) {
        // Every walked field was made accessible when its class was first seen.
        throw new IllegalStateException(e);
      }
    }
  }

  /** The shared string, the shared empty collection, or the value itself. */
  private static Object smaller(Object value) {
    if (value instanceof String s) {
      return shared(s);
    }
    if (value instanceof Map<?, ?> map && map.isEmpty()) {
      return Collections.emptyMap();
    }
    if (value instanceof List<?> list && list.isEmpty()) {
      return Collections.emptyList();
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  private static void compactEntries(Map<?, ?> map, int depth) {
    if (map.isEmpty()) {
      return;
    }
    try {
      ((Map<Object, Object>) map).replaceAll((k, v) -> smaller(v));
    } catch (UnsupportedOperationException readOnly) {
      // A map built in code (Map.of) stays as it is; its items are still walked.
    }
    for (Object value : map.values()) {
      compact(value, depth + 1);
    }
  }

  @SuppressWarnings("unchecked")
  private static void compactItems(List<?> list, int depth) {
    // Lists made by this store (List.copyOf, toList) are immutable and need nothing.
    if (list instanceof ArrayList<?> items) {
      items.trimToSize();
      ((List<Object>) items).replaceAll(CompactObjects::smaller);
    }
    for (Object item : list) {
      compact(item, depth + 1);
    }
  }

  /**
   * The fields of a model class and its superclasses that can hold a string, a collection or
   * another model object; none if the class's fields cannot be reached (it then stays as read).
   */
  private static List<Field> walkedFields(Class<?> type) {
    List<Field> fields = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        int mod = f.getModifiers();
        if (Modifier.isStatic(mod) || Modifier.isFinal(mod) || f.getType().isPrimitive()) {
          continue;
        }
        if (!walked(f.getType())) {
          continue;
        }
        try {
          f.setAccessible(true);
        } catch (InaccessibleObjectException | SecurityException e) {
          return List.of();
        }
        fields.add(f);
      }
    }
    return List.copyOf(fields);
  }

  private static boolean walked(Class<?> type) {
    return type == String.class
        || type == Object.class
        || Map.class.isAssignableFrom(type)
        || List.class.isAssignableFrom(type)
        || KubernetesResource.class.isAssignableFrom(type);
  }
}
