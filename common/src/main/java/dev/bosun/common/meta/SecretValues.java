package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/** Reads one key of a Secret as text, the one way every operator decodes Secret values. */
public final class SecretValues {

  private SecretValues() {}

  /**
   * The value of {@code key}: from {@code data} (base64) when it holds the key, otherwise from
   * {@code stringData} (a Secret built in code, before the API server merged it into data). Empty
   * when neither holds the key, or when the data value is not valid base64: a malformed value reads
   * as missing, so callers report it like an absent key instead of failing the reconcile. Blank
   * values are returned as they are; whether they count (and trimming) is up to the caller.
   */
  public static Optional<String> value(Secret secret, String key) {
    String encoded = secret.getData() == null ? null : secret.getData().get(key);
    if (encoded != null) {
      try {
        return Optional.of(new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException malformed) {
        return Optional.empty();
      }
    }
    return Optional.ofNullable(
        secret.getStringData() == null ? null : secret.getStringData().get(key));
  }
}
