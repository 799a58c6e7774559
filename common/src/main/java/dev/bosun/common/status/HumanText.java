package dev.bosun.common.status;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Objects;

/**
 * The one formatter for text a person reads (condition messages, Events): a template whose {@code
 * {}} places take text, whole numbers, failures and collections of those. It never calls {@code
 * toString} on anything else, so it cannot print a record ({@code Name[field=...]}), an enum
 * constant's name, an exception's class and message, or an {@code Object@hash}: a record or enum
 * argument is refused (a programming mistake, found by the caller's unit tests), and a failure is
 * described by {@link HumanMessages#describe}. Text arguments are taken as they are.
 */
public final class HumanText {

  /** What an absent value reads as. */
  static final String ABSENT = "unknown";

  /** What an empty collection reads as. */
  static final String NONE = "none";

  private HumanText() {}

  /**
   * {@code template} with each {@code {}} replaced by the next argument as a person reads it.
   *
   * @throws IllegalArgumentException when an argument has no human rendering (a record, an enum,
   *     any object that is not text, a number, a failure or a collection of those) or the number of
   *     arguments does not match the places
   */
  public static String format(String template, Object... args) {
    Objects.requireNonNull(template, "template");
    StringBuilder out = new StringBuilder(template.length() + 16 * args.length);
    int used = 0;
    int from = 0;
    for (int at = template.indexOf("{}"); at >= 0; at = template.indexOf("{}", from)) {
      if (used == args.length) {
        throw new IllegalArgumentException("more {} than arguments in: " + template);
      }
      out.append(template, from, at).append(text(args[used++]));
      from = at + 2;
    }
    if (used != args.length) {
      throw new IllegalArgumentException("more arguments than {} in: " + template);
    }
    return out.append(template, from, template.length()).toString();
  }

  /** The items as a person reads them, separated by ", "; {@value #NONE} when there are none. */
  public static String list(Collection<?> items) {
    if (items == null || items.isEmpty()) {
      return NONE;
    }
    StringBuilder out = new StringBuilder();
    for (Object item : items) {
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(text(item));
    }
    return out.toString();
  }

  /** One value as a person reads it, or a refusal. */
  private static String text(Object value) {
    if (value == null) {
      return ABSENT;
    }
    if (value instanceof CharSequence s) {
      return s.toString();
    }
    if (value instanceof Throwable failure) {
      return HumanMessages.describe(failure);
    }
    if (value instanceof Collection<?> items) {
      return list(items);
    }
    if (value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte
        || value instanceof BigInteger) {
      return value.toString();
    }
    if (value instanceof BigDecimal d) {
      return d.toPlainString();
    }
    throw new IllegalArgumentException(
        "a "
            + kind(value)
            + " has no text for a person; give a sentence or a name instead: "
            + value.getClass().getName());
  }

  private static String kind(Object value) {
    if (value instanceof Enum<?>) {
      return "enum constant";
    }
    if (value instanceof Record) {
      return "record";
    }
    return "Java object";
  }
}
