package dev.bosun.common.status;

import java.util.Objects;

/**
 * A condition as a reconciler wants it to be; {@link Conditions} turns it into the stored shape.
 *
 * @param type the condition type, for example {@code Ready}
 * @param status {@code True}, {@code False} or {@code Unknown}
 * @param reason a CamelCase reason a person can search for
 * @param message what happened and what to do about it
 */
public record DesiredCondition(String type, String status, String reason, String message) {

  public static final String TRUE = "True";
  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  public DesiredCondition {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(reason, "reason");
    if (!TRUE.equals(status) && !FALSE.equals(status) && !UNKNOWN.equals(status)) {
      throw new IllegalArgumentException(
          "condition status must be True, False or Unknown: " + status);
    }
    message = message == null ? "" : message;
  }

  public static DesiredCondition isTrue(String type, String reason, String message) {
    return new DesiredCondition(type, TRUE, reason, message);
  }

  public static DesiredCondition isFalse(String type, String reason, String message) {
    return new DesiredCondition(type, FALSE, reason, message);
  }

  public static DesiredCondition isUnknown(String type, String reason, String message) {
    return new DesiredCondition(type, UNKNOWN, reason, message);
  }

  public static DesiredCondition of(String type, boolean value, String reason, String message) {
    return new DesiredCondition(type, value ? TRUE : FALSE, reason, message);
  }
}
