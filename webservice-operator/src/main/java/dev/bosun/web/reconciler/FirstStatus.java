package dev.bosun.web.reconciler;

import static dev.bosun.web.status.WebServiceStatusAggregator.DEGRADED;
import static dev.bosun.web.status.WebServiceStatusAggregator.READY;

import dev.bosun.common.status.Conditions;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * When a new WebService's first status is written. A first rollout that goes well is over within
 * seconds: a "rolling out" status written on the way would be overwritten a moment later by
 * "Ready", one more write and watch event per WebService for nobody. So the first status waits for
 * the first rollout, at most {@link #WAIT} after its Deployment was created (the rollout's start,
 * however long the operator took to get there); it is written at once when there is news (Ready, or
 * Degraded: a Pod that cannot pull its image, a crash loop).
 *
 * <p>The wait is long enough for a first rollout that pulls its image or lands on a busy cluster:
 * at 10 s, a burst of 500 new WebServices on a loaded control plane still wrote two statuses for a
 * fifth to a third of them (the ones whose rollout took longer), the second a moment after the
 * first.
 */
final class FirstStatus {

  /** The longest a new WebService goes without a status. */
  static final Duration WAIT = Duration.ofSeconds(30);

  private FirstStatus() {}

  /**
   * How much longer the first status waits, or empty when {@code status} is to be written now: the
   * WebService has a status already, the new one is news, there is no Deployment (yet) to wait for,
   * or the wait is over.
   */
  static Optional<Duration> remainingWait(
      Optional<Deployment> stable,
      WebServiceStatus previous,
      WebServiceStatus status,
      Clock clock) {
    if (previous != null
        || Conditions.isTrue(status.getConditions(), READY)
        || Conditions.isTrue(status.getConditions(), DEGRADED)) {
      return Optional.empty();
    }
    Optional<Instant> created = stable.flatMap(FirstStatus::created);
    if (created.isEmpty()) {
      return Optional.empty();
    }
    Duration left = Duration.between(clock.instant(), created.get().plus(WAIT));
    // A clock behind the API server's never stretches the wait beyond WAIT.
    return left.isNegative() || left.isZero()
        ? Optional.empty()
        : Optional.of(left.compareTo(WAIT) > 0 ? WAIT : left);
  }

  private static Optional<Instant> created(Deployment deployment) {
    String timestamp = deployment.getMetadata().getCreationTimestamp();
    if (timestamp == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(timestamp));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
