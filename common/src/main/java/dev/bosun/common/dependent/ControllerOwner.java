package dev.bosun.common.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;

/**
 * The controller owner reference a child carries, so garbage collection removes it with its owner.
 */
public final class ControllerOwner {

  private ControllerOwner() {}

  /**
   * {@code owner} as the controlling owner, blocking its foreground deletion until the child goes.
   */
  public static OwnerReference of(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
