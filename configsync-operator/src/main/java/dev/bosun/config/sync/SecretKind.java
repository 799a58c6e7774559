package dev.bosun.config.sync;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Map;

/** Secrets: {@code type} and {@code data} are copied; the content never reaches a log or status. */
public final class SecretKind implements SyncedKind<Secret> {

  @Override
  public Class<Secret> type() {
    return Secret.class;
  }

  @Override
  public String syncKind() {
    return "SecretSync";
  }

  @Override
  public String hash(Secret secret) {
    // Exactly what a copy carries (the API server never returns stringData).
    return ContentHash.start().add("type", secret.getType()).add("data", secret.getData()).hex();
  }

  @Override
  public Secret copy(
      Secret source,
      String name,
      String namespace,
      Map<String, String> labels,
      Map<String, String> annotations) {
    return new SecretBuilder()
        .withMetadata(SyncedKind.copyMetadata(name, namespace, labels, annotations))
        .withType(source.getType())
        .withData(source.getData())
        .build();
  }
}
