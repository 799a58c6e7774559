package dev.bosun.web.reconciler;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.status.Conditions;
import dev.bosun.web.rollout.RolloutStep;
import dev.bosun.web.status.WebServiceStatusAggregator;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceStatus;
import io.fabric8.kubernetes.api.model.Condition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Events (and log lines) a person watching a WebService cares about: a block, a step of a gray
 * release, and the Ready transitions that are news.
 */
final class Announcements {

  // The reconciler's logger: the lines keep the category an operator's log settings name.
  private static final Logger LOG = LoggerFactory.getLogger(WebServiceReconciler.class);

  private final EventRecorder events;

  Announcements(EventRecorder events) {
    this.events = events;
  }

  /** A block, once: when Ready changes to it. */
  void blocked(WebService ws, WebServiceStatus previous, WebServiceStatus now, Blocked why) {
    if (!sameReady(previous, now)) {
      LOG.warn("{}: {}", why.reason(), why.problem());
      events.warning(ws, why.reason(), why.problem());
    }
  }

  /** What the gray release's step announces, if anything. */
  void step(WebService ws, RolloutStep step) {
    step.announcement()
        .ifPresent(
            a -> {
              LOG.info("{}: {}", a.reason(), a.message());
              events.record(
                  ws,
                  a.warning() ? EventRecorder.Type.Warning : EventRecorder.Type.Normal,
                  a.reason(),
                  a.message());
            });
  }

  /** Events for the transitions a person watching the WebService cares about. */
  void transitions(WebService ws, WebServiceStatus previous, WebServiceStatus now) {
    if (sameReady(previous, now)) {
      return;
    }
    Condition ready =
        Conditions.find(now.getConditions(), WebServiceStatusAggregator.READY).orElseThrow();
    Condition degraded =
        Conditions.find(now.getConditions(), WebServiceStatusAggregator.DEGRADED).orElseThrow();
    if ("True".equals(ready.getStatus())) {
      LOG.info("ready: {}", ready.getMessage());
      // A new WebService's first Ready is in its status and printer columns; an Event each would
      // add a write per WebService for no news. Ready after a change or a failure is news.
      if (!firstRollout(ws, previous)) {
        events.normal(ws, "Ready", ready.getMessage());
      }
    } else if ("True".equals(degraded.getStatus())) {
      LOG.warn("degraded ({}): {}", degraded.getReason(), degraded.getMessage());
      events.warning(ws, degraded.getReason(), degraded.getMessage());
    } else if ("RollingOut".equals(ready.getReason()) && !firstRollout(ws, previous)) {
      // A rollout of a change is news; the first rollout of a new WebService is not.
      events.normal(ws, "RollingOut", ready.getMessage());
    }
  }

  /**
   * Whether the WebService is still on its first rollout: no status yet, or its spec unchanged
   * since it was created and still being created or rolled out without having been available yet.
   */
  static boolean firstRollout(WebService ws, WebServiceStatus previous) {
    if (previous == null) {
      return true;
    }
    if (ws.getMetadata().getGeneration() == null || ws.getMetadata().getGeneration() > 1) {
      return false;
    }
    boolean rollingOut =
        Conditions.find(previous.getConditions(), WebServiceStatusAggregator.READY)
            .map(c -> "Creating".equals(c.getReason()) || "RollingOut".equals(c.getReason()))
            .orElse(true);
    return rollingOut
        && !Conditions.isTrue(previous.getConditions(), WebServiceStatusAggregator.AVAILABLE);
  }

  private static boolean sameReady(WebServiceStatus previous, WebServiceStatus now) {
    return Conditions.sameStatusAndReason(
        previous == null ? null : previous.getConditions(),
        now.getConditions(),
        WebServiceStatusAggregator.READY);
  }
}
