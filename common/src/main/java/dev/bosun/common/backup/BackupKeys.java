package dev.bosun.common.backup;

import java.util.regex.Pattern;

/** The keys every store accepts: relative paths without {@code ..}, in a portable alphabet. */
public final class BackupKeys {

  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private BackupKeys() {}

  /** Returns {@code key} when it is a valid key, else throws naming what is wrong with it. */
  public static String validate(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("a backup key must not be empty");
    }
    if (key.length() > 512) {
      throw new IllegalArgumentException("a backup key must be at most 512 characters: " + key);
    }
    for (String segment : key.split("/", -1)) {
      if (!SEGMENT.matcher(segment).matches()) {
        throw new IllegalArgumentException(
            "backup key '"
                + key
                + "' has an invalid path segment '"
                + segment
                + "' (segments start with a letter or digit and use only letters, digits, '.', '_'"
                + " and '-')");
      }
    }
    return key;
  }

  /**
   * Returns {@code prefix} when it is a valid listing prefix: empty, or a key that may end with a
   * slash.
   */
  public static String validatePrefix(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      return "";
    }
    validate(prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix);
    return prefix;
  }
}
