package dev.bosun.config.sync;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.Map;

/** What differs between syncing ConfigMaps and Secrets: the type, its content and its copy. */
public interface SyncedKind<R extends HasMetadata> {

  /** The Kubernetes type copied. */
  Class<R> type();

  /** The kind of the sync resource that copies it, for labels and messages. */
  String syncKind();

  /** Hash of the content a copy must reproduce. */
  String hash(R resource);

  /** The metadata of a copy: its identity and Bosun's marks, none of the source's own metadata. */
  static ObjectMeta copyMetadata(
      String name, String namespace, Map<String, String> labels, Map<String, String> annotations) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(namespace)
        .withLabels(labels)
        .withAnnotations(annotations)
        .build();
  }

  /** A copy of {@code source} with the given identity; content only, no source metadata. */
  R copy(
      R source,
      String name,
      String namespace,
      Map<String, String> labels,
      Map<String, String> annotations);
}
