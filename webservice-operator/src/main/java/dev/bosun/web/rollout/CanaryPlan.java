package dev.bosun.web.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Everything the {@link CanaryPlanner} decides on: the canary's steps, the replica count, the
 * revisions, what the cluster shows and what the status recorded.
 *
 * @param steps the canary's steps, in order
 * @param readyDeadline how long a step's canary Pods may take to become ready
 * @param replicas the total replica count the user asks for
 * @param desiredRevision the revision of the spec's Pod template
 * @param stableRevision the revision the stable Deployment runs; empty before it exists
 * @param stableRolledOut whether every replica of the stable Deployment runs its template, ready
 * @param canary the canary Deployment as observed, if any
 * @param canaryProblem why the canary's Pods fail, if they do
 * @param recorded what the status recorded
 * @param action what the user asked for through the rollout-action annotation
 * @param now the time of this reconcile
 * @param analysis the verdict on the canary's answers at this step, when the spec asks for one
 */
public record CanaryPlan(
    List<Step> steps,
    Duration readyDeadline,
    int replicas,
    String desiredRevision,
    Optional<String> stableRevision,
    boolean stableRolledOut,
    Optional<ObservedCanary> canary,
    Optional<String> canaryProblem,
    RolloutState recorded,
    Optional<Action> action,
    Instant now,
    Optional<CanaryJudge.Verdict> analysis) {

  /** One step: the canary's share of the replicas in percent, and how long the step lasts. */
  public record Step(int weight, Duration pause) {}

  /** The canary Deployment as the cluster shows it. */
  public record ObservedCanary(String revision, int replicas, int readyReplicas) {}

  /** A manual decision, given as the annotation {@code web.bosun.dev/rollout-action}. */
  public enum Action {
    PROMOTE,
    ABORT;

    /** The action an annotation value names, if any. */
    public static Optional<Action> parse(String value) {
      if (value == null) {
        return Optional.empty();
      }
      return switch (value.trim().toLowerCase(Locale.ROOT)) {
        case "promote" -> Optional.of(PROMOTE);
        case "abort" -> Optional.of(ABORT);
        default -> Optional.empty();
      };
    }
  }
}
