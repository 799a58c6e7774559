package dev.bosun.mysql.plan;

/**
 * Where loading a cluster's fromBackup stands: from the status record and the background load of
 * this operator process.
 *
 * @param detail the dump's location when DONE, the failure when FAILED, else null
 */
public record RestoreState(Phase phase, String detail) {

  /** The phases of a restore. */
  public enum Phase {
    /** No fromBackup, or it was loaded and recorded. */
    NONE,
    /** Not started yet. */
    PENDING,
    /** Loading in the background. */
    RUNNING,
    /** Loaded; the record does not say so yet. */
    DONE,
    /** The load failed part-way: never run again over what it wrote. */
    FAILED,
    /** Recorded as started, and no load of this process knows of it: the operator restarted. */
    INTERRUPTED
  }

  /** Nothing to restore. */
  public static RestoreState none() {
    return new RestoreState(Phase.NONE, null);
  }
}
