package dev.bosun.config.model;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Set;

/**
 * What a ConfigMapSync or SecretSync asks for, whichever kind it is.
 *
 * @param sourceName the source in the sync's namespace
 * @param targetName the copies' name (defaults to the source's)
 * @param namespaces destinations named explicitly
 * @param selector destinations selected by label, or null
 */
public record SyncRequest(
    String sourceName, String targetName, Set<String> namespaces, LabelSelector selector) {

  public SyncRequest {
    targetName = targetName == null ? sourceName : targetName;
    namespaces = namespaces == null ? Set.of() : Set.copyOf(namespaces);
  }
}
