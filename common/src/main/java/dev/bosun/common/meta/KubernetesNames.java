package dev.bosun.common.meta;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The API server's rules for names, label keys and label values, so an operator can tell a user
 * which rule a name breaks before it creates anything. Each check returns the broken rule as a
 * sentence about {@code what} (for example {@code "Service name"}), or empty when the value is
 * valid.
 */
public final class KubernetesNames {

  /** Longest DNS-1123 and DNS-1035 label: Service, Namespace, port and container names. */
  public static final int LABEL_MAX = 63;

  /** Longest DNS-1123 subdomain: Deployment, ConfigMap, Secret, Ingress and most other names. */
  public static final int SUBDOMAIN_MAX = 253;

  /** Longest label value, and longest name part of a label key. */
  public static final int LABEL_VALUE_MAX = 63;

  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  private static final Pattern QUALIFIED_NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

  private KubernetesNames() {}

  /**
   * A DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a
   * letter or digit.
   */
  public static Optional<String> dns1123Label(String what, String value) {
    return check(
        what,
        value,
        LABEL_MAX,
        DNS1123_LABEL,
        "lower-case letters, digits and '-', starting and ending with a letter or digit");
  }

  /**
   * A DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels (no upper case, no
   * '_').
   */
  public static Optional<String> dns1123Subdomain(String what, String value) {
    return check(
        what,
        value,
        SUBDOMAIN_MAX,
        DNS1123_SUBDOMAIN,
        "lower-case letters, digits, '-' and '.', each dot-separated part starting and ending with"
            + " a letter or digit");
  }

  /**
   * A DNS-1035 label (what a Service name must be): at most 63 lower-case letters, digits and '-',
   * starting with a letter and ending with a letter or digit, no '.'.
   */
  public static Optional<String> dns1035Label(String what, String value) {
    return check(
        what,
        value,
        LABEL_MAX,
        DNS1035_LABEL,
        "lower-case letters, digits and '-', starting with a letter and ending with a letter or"
            + " digit (no '.')");
  }

  /** A label value: empty, or at most 63 letters, digits, '-', '_' and '.', alphanumeric ends. */
  public static Optional<String> labelValue(String what, String value) {
    if (value == null) {
      return Optional.of(what + " is missing");
    }
    if (value.isEmpty()) {
      return Optional.empty();
    }
    return check(
        what,
        value,
        LABEL_VALUE_MAX,
        LABEL_VALUE,
        "letters, digits, '-', '_' and '.', starting and ending with a letter or digit");
  }

  /**
   * A label or annotation key: an optional DNS-1123 subdomain prefix and '/', then a name of at
   * most 63 letters, digits, '-', '_' and '.' with alphanumeric ends.
   */
  public static Optional<String> qualifiedName(String what, String value) {
    if (value == null || value.isEmpty()) {
      return Optional.of(what + " must not be empty");
    }
    int slash = value.indexOf('/');
    String name = slash < 0 ? value : value.substring(slash + 1);
    if (slash >= 0) {
      Optional<String> prefix = dns1123Subdomain(what + " prefix", value.substring(0, slash));
      if (prefix.isPresent()) {
        return prefix.map(p -> p + " (in '" + shorten(value) + "')");
      }
    }
    if (name.isEmpty()) {
      return Optional.of(what + " '" + shorten(value) + "' has an empty name after '/'");
    }
    return check(
        what,
        name,
        LABEL_VALUE_MAX,
        QUALIFIED_NAME_PART,
        "letters, digits, '-', '_' and '.', starting and ending with a letter or digit, after an"
            + " optional DNS prefix and '/'");
  }

  private static Optional<String> check(
      String what, String value, int max, Pattern pattern, String allowed) {
    if (value == null || value.isEmpty()) {
      return Optional.of(what + " must not be empty");
    }
    if (value.length() > max) {
      return Optional.of(
          what
              + " '"
              + shorten(value)
              + "' is "
              + value.length()
              + " characters long; at most "
              + max
              + " are allowed");
    }
    if (!pattern.matcher(value).matches()) {
      return Optional.of(what + " '" + shorten(value) + "' may only contain " + allowed);
    }
    return Optional.empty();
  }

  /** A value cut for a message: a long name must not make the message itself unbounded. */
  static String shorten(String value) {
    return value.length() <= 80 ? value : value.substring(0, 77) + "...";
  }
}
