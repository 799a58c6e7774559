package dev.bosun.common.transfer;

import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The random tokens that let one restore's Pod fetch one artifact from the operator: made here,
 * kept under {@value #TOKEN} in a Secret of the restoring cluster's namespace, and checked without
 * leaking their content or length through timing.
 */
public final class AccessTokens {

  /** Data key of the token in its Secret. */
  public static final String TOKEN = "token";

  /** Data key of the operator's CA (PEM) next to it: the fetch container trusts only that. */
  public static final String CA = "ca.crt";

  private static final SecureRandom RANDOM = new SecureRandom();

  private AccessTokens() {}

  /** A new token: 32 random bytes, URL-safe base64 without padding. */
  public static String newToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * Whether {@code presented} is the token of {@code secret}. Both are hashed first and the digests
   * compared in constant time, so neither the content nor the length of the token leaks.
   */
  public static boolean accepts(Secret secret, String presented) {
    String encoded = secret.getData() == null ? null : secret.getData().get(TOKEN);
    if (encoded == null || encoded.isEmpty() || presented == null || presented.isEmpty()) {
      return false;
    }
    byte[] expected;
    try {
      expected = Base64.getDecoder().decode(encoded);
    } catch (IllegalArgumentException notBase64) {
      return false;
    }
    return MessageDigest.isEqual(
        sha256(expected), sha256(presented.getBytes(StandardCharsets.UTF_8)));
  }

  /** Base64 of a text, as Secret data holds it. */
  public static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
