package dev.bosun.web.rollout;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Whether a Deployment's rollout has gone without progress long enough for its Pods to be read (a
 * crash loop or an image that cannot be pulled shows only there), and when to look again.
 *
 * <p>Pods are not watched: a watch delivers every Pod update of every rollout (about four per Pod),
 * while a rollout that goes well explains itself through its Deployment. The Deployment controller
 * stamps its Progressing condition whenever a rollout makes progress (a ReplicaSet created or
 * scaled, a Pod ready or available), so a rollout whose stamp is {@link #GRACE} old has stalled.
 *
 * <p>The grace is short because the kubelet is quick to say why a Pod cannot start: on the real
 * node a missing ConfigMap volume was reported (FailedMount) and a missing envFrom Secret shown
 * (CreateContainerConfigError) within about a second of the Pod's first Event, and the progress
 * stamp is no later than that Event. A Pod that takes longer to become ready costs one more read.
 */
public sealed interface RolloutStall {

  /** How long a rollout may go without progress before its Pods are read. */
  Duration GRACE = Duration.ofSeconds(5);

  /** The shortest time between two reads of a stalled rollout's Pods. */
  Duration SHORTEST_RECHECK = Duration.ofSeconds(10);

  /** The longest a stalled rollout goes between two reads of its Pods. */
  Duration LONGEST_RECHECK = Duration.ofMinutes(5);

  /** When to look again although no Deployment event comes, if at all. */
  Optional<Duration> recheckIn();

  /** Whether the Pods are read now. */
  default boolean readsPods() {
    return this instanceof Stalled;
  }

  /** Nothing to explain: no Deployment yet, or its rollout is complete. */
  record Settled() implements RolloutStall {
    @Override
    public Optional<Duration> recheckIn() {
      return Optional.empty();
    }
  }

  /** Progressing: looked at again once {@code lookIn} has passed without progress. */
  record Progressing(Duration lookIn) implements RolloutStall {
    @Override
    public Optional<Duration> recheckIn() {
      return Optional.of(lookIn);
    }
  }

  /**
   * No progress for {@code stalledFor}: the Pods are read now, and again after half as long again
   * (from {@link #SHORTEST_RECHECK} up to {@link #LONGEST_RECHECK}), as the kubelet backs off its
   * restarts.
   */
  record Stalled(Duration stalledFor) implements RolloutStall {
    @Override
    public Optional<Duration> recheckIn() {
      Duration half = stalledFor.dividedBy(2);
      if (half.compareTo(SHORTEST_RECHECK) < 0) {
        return Optional.of(SHORTEST_RECHECK);
      }
      return Optional.of(half.compareTo(LONGEST_RECHECK) > 0 ? LONGEST_RECHECK : half);
    }
  }

  /** The verdict on {@code deployment} at {@code now}. */
  static RolloutStall of(Optional<Deployment> deployment, Instant now) {
    if (deployment.isEmpty() || rolledOut(deployment.get(), true)) {
      return new Settled();
    }
    Deployment d = deployment.get();
    Optional<DeploymentCondition> progressing = progressing(d);
    Duration quiet = since(lastProgress(d, progressing), now);
    // A controller that gave up (ProgressDeadlineExceeded) means stalled, whatever the grace.
    boolean gaveUp = progressing.filter(c -> "False".equals(c.getStatus())).isPresent();
    return gaveUp || quiet.compareTo(GRACE) >= 0
        ? new Stalled(quiet)
        : new Progressing(GRACE.minus(quiet));
  }

  /**
   * Whether every replica runs the Deployment's latest template and is ready (and, if asked,
   * available), with no old Pod left.
   */
  static boolean rolledOut(Deployment d, boolean available) {
    var s = d.getStatus();
    int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    return s != null
        && s.getObservedGeneration() != null
        && s.getObservedGeneration() >= d.getMetadata().getGeneration()
        && orZero(s.getUpdatedReplicas()) == want
        && orZero(s.getReadyReplicas()) == want
        && (!available || orZero(s.getAvailableReplicas()) == want)
        && orZero(s.getReplicas()) == want;
  }

  private static Optional<DeploymentCondition> progressing(Deployment d) {
    if (d.getStatus() == null || d.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return d.getStatus().getConditions().stream()
        .filter(c -> "Progressing".equals(c.getType()))
        .findFirst();
  }

  /** The controller's last progress stamp; without one yet, the Deployment's creation. */
  private static Optional<Instant> lastProgress(
      Deployment d, Optional<DeploymentCondition> progressing) {
    return progressing
        .map(DeploymentCondition::getLastUpdateTime)
        .or(() -> Optional.ofNullable(d.getMetadata().getCreationTimestamp()))
        .flatMap(RolloutStall::parse);
  }

  /** How long ago {@code then} was; a stamp from a clock ahead of ours counts as just now. */
  private static Duration since(Optional<Instant> then, Instant now) {
    if (then.isEmpty()) {
      return Duration.ZERO;
    }
    Duration d = Duration.between(then.get(), now);
    return d.isNegative() ? Duration.ZERO : d;
  }

  private static Optional<Instant> parse(String timestamp) {
    try {
      return Optional.of(Instant.parse(timestamp));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static int orZero(Integer i) {
    return i == null ? 0 : i;
  }
}
