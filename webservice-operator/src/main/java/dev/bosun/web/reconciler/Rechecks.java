package dev.bosun.web.reconciler;

import dev.bosun.web.dependent.Deployments;
import dev.bosun.web.rollout.RolloutStall;
import dev.bosun.web.v1alpha1.WebService;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

/** When a WebService is looked at again without an event: the earliest of what asks for it. */
final class Rechecks {

  private Rechecks() {}

  /** The shortest of the waits present; empty when none is. */
  @SafeVarargs
  static Optional<Duration> earliest(Optional<Duration>... waits) {
    return Arrays.stream(waits).flatMap(Optional::stream).min(Duration::compareTo);
  }

  /**
   * While a canary's Pods are not all ready, they are read again every {@link
   * RolloutStall#SHORTEST_RECHECK}: failing ones abort the release at once instead of at its ready
   * deadline.
   */
  static Optional<Duration> canary(WebService ws, Context<WebService> context) {
    if (GrayRelease.canary(ws).isEmpty()) {
      return Optional.empty();
    }
    return Deployments.canary(ws, context)
        .filter(d -> !RolloutStall.rolledOut(d, false))
        .map(d -> RolloutStall.SHORTEST_RECHECK);
  }
}
