package dev.bosun.common.runtime;

/** Facts of the operator images a Pod made by an operator runs a main class of. */
public final class OperatorImage {

  /** The Java classpath in every operator image (Jib's layout). */
  public static final String CLASSPATH = "/app/resources:/app/classes:/app/libs/*";

  private OperatorImage() {}
}
