package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The recommended labels every object Bosun creates carries, and the selectors built on them. */
public final class Labels {

  public static final String NAME = "app.kubernetes.io/name";
  public static final String INSTANCE = "app.kubernetes.io/instance";
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String PART_OF = "app.kubernetes.io/part-of";
  public static final String PLATFORM = "bosun";

  private Labels() {}

  /**
   * The full label set of a child object.
   *
   * @param owner the custom resource the child belongs to (its name is the instance)
   * @param name what the application is, for example the kind in lower case
   * @param component the child's role, for example {@code server}
   * @param managedBy the operator's name, which is also what its informers filter on
   */
  public static Map<String, String> of(
      HasMetadata owner, String name, String component, String managedBy) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME, name);
    labels.put(INSTANCE, owner.getMetadata().getName());
    labels.put(COMPONENT, component);
    labels.put(MANAGED_BY, managedBy);
    labels.put(PART_OF, PLATFORM);
    return labels;
  }

  /** The stable subset used in selectors: it must never change for the life of the owner. */
  public static Map<String, String> selector(HasMetadata owner, String name, String component) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME, name);
    labels.put(INSTANCE, owner.getMetadata().getName());
    labels.put(COMPONENT, component);
    return labels;
  }

  /** A selector map rendered as the string form the API accepts. */
  public static String render(Map<String, String> selector) {
    StringBuilder sb = new StringBuilder();
    selector.forEach(
        (k, v) -> {
          if (sb.length() > 0) {
            sb.append(',');
          }
          sb.append(k).append('=').append(v);
        });
    return sb.toString();
  }

  /**
   * Maps a child (a Pod of a workload the operator created) to its owning custom resource through
   * its {@code app.kubernetes.io/instance} label: the owner of the same name in the same namespace.
   */
  public static <R extends HasMetadata> SecondaryToPrimaryMapper<R> toInstanceOwner() {
    return child ->
        Set.of(
            new ResourceID(
                child.getMetadata().getLabels().get(INSTANCE), child.getMetadata().getNamespace()));
  }
}
