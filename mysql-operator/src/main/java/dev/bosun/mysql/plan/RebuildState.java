package dev.bosun.mysql.plan;

/**
 * Where the rebuild of a replica stands: from the status record and the background copy of this
 * operator process.
 *
 * @param member the replica being (or last) rebuilt, null when NONE
 * @param detail the failure when FAILED or ABANDONED, else null
 */
public record RebuildState(Phase phase, String member, String detail) {

  /** The phases of a rebuild. */
  public enum Phase {
    /** No rebuild is under way (none ever, or the last one is recorded as finished). */
    NONE,
    /** Copying in the background. */
    RUNNING,
    /** Copied and positioned; the record does not say so yet. */
    DONE,
    /** The copy failed: the member stays out until a person requests the rebuild again. */
    FAILED,
    /** Recorded as copying, and no copy of this process knows of it: the operator restarted. */
    INTERRUPTED,
    /** Recorded as failed: the member stays out until a person requests the rebuild again. */
    ABANDONED,
    /**
     * The member's server could not finish crash recovery: its volume is being replaced (the old
     * one kept); once it answers on the new one it is rebuilt by copy.
     */
    REPLACING_VOLUME
  }

  /** No rebuild under way. */
  public static RebuildState none() {
    return new RebuildState(Phase.NONE, null, null);
  }

  /** Whether {@code name} must stay out of the topology (not attached, never promoted). */
  public boolean holds(String name) {
    return phase != Phase.NONE && name.equals(member);
  }
}
