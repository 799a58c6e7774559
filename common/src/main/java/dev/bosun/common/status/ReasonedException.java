package dev.bosun.common.status;

/**
 * A failure a condition reports as it is: a CamelCase reason and a sentence a person can act on
 * (never an exception's text, never a secret).
 */
public class ReasonedException extends Exception {

  private final String reason;

  public ReasonedException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** The condition reason. */
  public String reason() {
    return reason;
  }
}
