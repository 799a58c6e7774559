package dev.bosun.config.sync;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/** A stable hash of configuration content: equal content gives an equal hash, in any key order. */
public final class ContentHash {

  private final MessageDigest digest;

  private ContentHash() {
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A new, empty hash. */
  public static ContentHash start() {
    return new ContentHash();
  }

  /** Adds a named section (a map, sorted by key; null is the empty map). */
  public ContentHash add(String section, Map<String, String> entries) {
    update(section);
    // The entry count frames the section: no entry can pose as the next section's name.
    update(Integer.toString(entries == null ? 0 : entries.size()));
    new TreeMap<>(entries == null ? Map.of() : entries)
        .forEach(
            (k, v) -> {
              update(k);
              update(v);
            });
    return this;
  }

  /** Adds a single named value. */
  public ContentHash add(String section, String value) {
    update(section);
    update(value == null ? "" : value);
    return this;
  }

  /** The first 16 bytes of the SHA-256, in hex. */
  public String hex() {
    return HexFormat.of().formatHex(digest.digest(), 0, 16);
  }

  private void update(String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    // Length-prefixed, so ("ab","c") and ("a","bc") differ.
    digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
    digest.update((byte) ':');
    digest.update(bytes);
  }
}
