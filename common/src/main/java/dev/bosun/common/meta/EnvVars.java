package dev.bosun.common.meta;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;

/** Environment variables of the containers the operators create. */
public final class EnvVars {

  private EnvVars() {}

  /** A variable with a literal value. */
  public static EnvVar of(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }

  /**
   * A variable read from key {@code key} of Secret {@code secret}: the value never appears in the
   * Pod spec.
   */
  public static EnvVar fromSecret(String name, String secret, String key) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewSecretKeyRef()
        .withName(secret)
        .withKey(key)
        .endSecretKeyRef()
        .endValueFrom()
        .build();
  }
}
