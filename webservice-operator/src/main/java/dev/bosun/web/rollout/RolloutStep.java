package dev.bosun.web.rollout;

import java.time.Duration;
import java.util.Optional;

/**
 * What the {@link CanaryPlanner} decided for this reconcile: which template and how many replicas
 * the stable Deployment gets, whether a canary Deployment runs and with how many, what to record
 * and what to tell the user.
 */
public sealed interface RolloutStep {

  /** The state the status records after this step. */
  RolloutState state();

  /** The Event of this step, if it is news. */
  Optional<Announcement> announcement();

  /** When to look again although nothing else changes (a pause or a deadline ends). */
  default Optional<Duration> recheckIn() {
    return Optional.empty();
  }

  /** No gray release: the stable Deployment runs the spec's template, no canary. */
  record Steady(RolloutState state, Optional<Announcement> announcement) implements RolloutStep {}

  /**
   * A step of the gray release: the canary runs the spec's template with {@code canaryReplicas},
   * the stable Deployment keeps its template with the rest.
   */
  record RunCanary(
      RolloutState state,
      int weight,
      int canaryReplicas,
      int stableReplicas,
      Optional<Duration> recheckIn,
      Optional<Announcement> announcement)
      implements RolloutStep {}

  /**
   * The stable Deployment takes the spec's template with every replica; the canary keeps {@code
   * canaryReplicas} until the stable one has rolled out, so capacity never drops.
   */
  record Promote(RolloutState state, int canaryReplicas, Optional<Announcement> announcement)
      implements RolloutStep {}

  /** The canary is removed; the stable Deployment keeps its template with every replica. */
  record Abort(RolloutState state, String why, Optional<Announcement> announcement)
      implements RolloutStep {}

  /** An Event: a Normal one for progress, a Warning when the rollout aborts. */
  record Announcement(String reason, String message, boolean warning) {}
}
