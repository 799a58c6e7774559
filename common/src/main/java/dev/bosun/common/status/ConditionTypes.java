package dev.bosun.common.status;

/**
 * The condition types every Bosun resource that has them spells the same way, so a person (and
 * {@code kubectl wait --for=condition=Ready}) reads one vocabulary across the operators.
 */
public final class ConditionTypes {

  /** The resource does what its spec asks. */
  public static final String READY = "Ready";

  /** The operator is changing something to reach the spec. */
  public static final String PROGRESSING = "Progressing";

  /** Something is wrong that the operator cannot mend by itself, or not yet. */
  public static final String DEGRADED = "Degraded";

  /** Enough of the workload serves requests. */
  public static final String AVAILABLE = "Available";

  private ConditionTypes() {}
}
