package dev.bosun.web.rollout;

import java.time.Instant;

/**
 * What the status records about the gray release of one revision: where it stands, which step it is
 * at (from 0) and since when, and the two revisions involved.
 */
public record RolloutState(
    Phase phase, int step, String stableRevision, String canaryRevision, Instant stepStartedAt) {

  /** Where a gray release stands. */
  public enum Phase {
    /** No gray release recorded. */
    NONE,
    /** The canary runs beside the stable Deployment, step by step. */
    PROGRESSING,
    /** The stable Deployment takes the canary's template; the canary goes once it has. */
    PROMOTING,
    /** The stable Deployment runs the canary's revision; the canary is gone. */
    PROMOTED,
    /** The canary failed or was stopped; the stable Deployment kept its revision. */
    ABORTED
  }

  /** Nothing recorded. */
  public static final RolloutState NONE = new RolloutState(Phase.NONE, 0, null, null, null);

  /** The same rollout in another phase. */
  public RolloutState in(Phase next) {
    return new RolloutState(next, step, stableRevision, canaryRevision, stepStartedAt);
  }

  /** True when this records a rollout of {@code revision}. */
  public boolean isOf(String revision) {
    return canaryRevision != null && canaryRevision.equals(revision);
  }
}
