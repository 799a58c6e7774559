package dev.bosun.mysql.execute;

/** A statement or connection to an instance failed; the message never holds statement text. */
public class InstanceException extends Exception {

  /** With a message naming the instance and step. */
  public InstanceException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Without a cause. */
  public InstanceException(String message) {
    super(message);
  }
}
