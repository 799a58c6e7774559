package dev.bosun.mysql.reconciler;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether a serverConfig key may be written into the members' configuration. The servers read an
 * option under many spellings: any case, '-' or '_', and behind the prefixes {@code loose-}, {@code
 * skip-}, {@code disable-}, {@code enable-} and {@code maximum-} (stacked, too: {@code
 * loose-skip-log-bin}). A key is reduced to the option it sets before it is compared with the
 * settings the operator owns, and a key that is no plain option name (a line break, '=', a section
 * header) is refused: it would write lines of its own into the configuration file.
 */
final class ServerConfigKeys {

  private static final Pattern OPTION_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,127}");
  private static final List<String> PREFIXES =
      List.of("loose-", "skip-", "disable-", "enable-", "maximum-");

  private ServerConfigKeys() {}

  /** The problem with {@code key}, or empty; {@code owned} are the dialect's owned settings. */
  static Optional<String> problem(String key, List<String> owned) {
    if (!OPTION_NAME.matcher(key).matches()) {
      return Optional.of(
          "serverConfig key \""
              + printable(key)
              + "\" is not an option name (letters, digits, '-' and '_', starting with a letter,"
              + " at most 128 characters)");
    }
    String option = option(key);
    if (owned.contains(option) || owned.contains(option.replace('-', '_'))) {
      return Optional.of(
          "serverConfig."
              + key
              + (option.equals(key.toLowerCase(Locale.ROOT).replace('_', '-'))
                  ? ""
                  : " sets " + option + ", which")
              + " is managed by the operator and cannot be set");
    }
    return Optional.empty();
  }

  /** The option a key sets: lower case, '-' for '_', every option prefix taken off. */
  static String option(String key) {
    String k = key.toLowerCase(Locale.ROOT).replace('_', '-');
    boolean stripped = true;
    while (stripped) {
      stripped = false;
      for (String prefix : PREFIXES) {
        if (k.startsWith(prefix) && k.length() > prefix.length()) {
          k = k.substring(prefix.length());
          stripped = true;
        }
      }
    }
    return k;
  }

  /** A key as a person can read it in a status line: control characters shown as '?'. */
  private static String printable(String key) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < key.length() && i < 64; i++) {
      char ch = key.charAt(i);
      sb.append(Character.isISOControl(ch) || ch == '"' ? '?' : ch);
    }
    return key.length() > 64 ? sb + "..." : sb.toString();
  }
}
