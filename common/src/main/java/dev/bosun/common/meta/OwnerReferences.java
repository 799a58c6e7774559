package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Reading owner references: who controls an object (JOSDK's dependents write them). */
public final class OwnerReferences {

  private OwnerReferences() {}

  /** True when {@code child} is controlled by {@code owner} (same UID). */
  public static boolean isControlledBy(HasMetadata child, HasMetadata owner) {
    return child.getMetadata().getOwnerReferences().stream()
        .anyMatch(
            r ->
                Boolean.TRUE.equals(r.getController())
                    && r.getUid().equals(owner.getMetadata().getUid()));
  }
}
