package dev.bosun.config.sync;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;

/** What differs between syncing ConfigMaps and Secrets: the type, its content and its copy. */
public interface SyncedKind<R extends HasMetadata> {

  /** The Kubernetes type copied. */
  Class<R> type();

  /** The kind of the sync resource that copies it, for labels and messages. */
  String syncKind();

  /** Hash of the content a copy must reproduce. */
  String hash(R resource);

  /** A copy of {@code source} with the given identity; content only, no source metadata. */
  R copy(
      R source,
      String name,
      String namespace,
      Map<String, String> labels,
      Map<String, String> annotations);
}
