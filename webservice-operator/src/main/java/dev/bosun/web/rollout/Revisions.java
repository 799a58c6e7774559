package dev.bosun.web.rollout;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A revision: a short hash of a Pod template, so two templates compare by one label-safe word. */
public final class Revisions {

  private Revisions() {}

  /** The revision of {@code template}: the first 10 hex digits of its JSON's SHA-256. */
  public static String of(PodTemplateSpec template) {
    return digest(Serialization.asJson(template));
  }

  /** The first 10 hex digits of {@code text}'s SHA-256. */
  public static String digest(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
