package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;

/** Owner references that make garbage collection remove same-namespace children. */
public final class OwnerReferences {

  private OwnerReferences() {}

  /** A controller reference to {@code owner}; the child is deleted when the owner is. */
  public static OwnerReference controller(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /** True when {@code child} is controlled by {@code owner} (same UID). */
  public static boolean isControlledBy(HasMetadata child, HasMetadata owner) {
    return child.getMetadata().getOwnerReferences().stream()
        .anyMatch(
            r ->
                Boolean.TRUE.equals(r.getController())
                    && r.getUid().equals(owner.getMetadata().getUid()));
  }
}
