package dev.bosun.common.transfer;

import dev.bosun.common.meta.Labels;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.Optional;

/**
 * Reading a restore's Secret, the grant an {@link ArtifactRoute} honours: whose it is, and the
 * artifact key it names.
 */
public final class RestoreGrants {

  private RestoreGrants() {}

  /**
   * Whether {@code secret} is the grant of {@code operator} for the {@code ownerKind} named {@code
   * owner}: labelled as managed by that operator and owned by that object. Anything else under the
   * name grants nothing.
   */
  public static boolean isFor(Secret secret, String operator, String ownerKind, String owner) {
    var meta = secret.getMetadata();
    return meta != null
        && meta.getLabels() != null
        && operator.equals(meta.getLabels().get(Labels.MANAGED_BY))
        && meta.getOwnerReferences() != null
        && meta.getOwnerReferences().stream()
            .anyMatch(o -> ownerKind.equals(o.getKind()) && owner.equals(o.getName()));
  }

  /** The non-blank value of the annotation {@code annotation} of {@code secret}, if any. */
  public static Optional<String> annotation(Secret secret, String annotation) {
    var annotations = secret.getMetadata() == null ? null : secret.getMetadata().getAnnotations();
    return Optional.ofNullable(annotations == null ? null : annotations.get(annotation))
        .filter(k -> !k.isBlank());
  }
}
