package dev.bosun.config.sync;

import static dev.bosun.config.ConfigSyncOperator.ACCEPT_SYNC_FROM;
import static dev.bosun.config.ConfigSyncOperator.ALLOW_SYNC_TO;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Arrays;
import java.util.Optional;

/**
 * Consent on both sides of a copy. The source side: whoever can write the source annotates it with
 * the namespaces it may go to, so creating a sync (which needs no read access to the source) can
 * never pull data out on its own. The destination side: a namespace annotates which namespaces it
 * accepts copies from, unless the operator is configured not to require it.
 */
public final class Consent {

  private Consent() {}

  /** Why the copy to {@code destination} is not allowed, or empty when both sides consent. */
  public static Optional<String> refusal(
      HasMetadata source, Namespace destination, boolean destinationConsentRequired) {
    String sourceNs = source.getMetadata().getNamespace();
    String destNs = destination.getMetadata().getName();
    if (!listed(annotation(source, ALLOW_SYNC_TO), destNs)) {
      return Optional.of(
          "the source does not allow copies to "
              + destNs
              + ": its owner must list the namespace in annotation "
              + ALLOW_SYNC_TO);
    }
    if (destinationConsentRequired
        && !listed(annotation(destination, ACCEPT_SYNC_FROM), sourceNs)) {
      return Optional.of(
          "namespace "
              + destNs
              + " does not accept copies from "
              + sourceNs
              + ": its owner must list it in annotation "
              + ACCEPT_SYNC_FROM);
    }
    return Optional.empty();
  }

  private static String annotation(HasMetadata o, String key) {
    return o.getMetadata().getAnnotations() == null
        ? null
        : o.getMetadata().getAnnotations().get(key);
  }

  static boolean listed(String list, String namespace) {
    if (list == null) {
      return false;
    }
    return Arrays.stream(list.split(","))
        .map(String::trim)
        .anyMatch(entry -> entry.equals("*") || entry.equals(namespace));
  }
}
