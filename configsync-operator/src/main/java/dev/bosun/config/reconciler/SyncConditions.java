package dev.bosun.config.reconciler;

import static dev.bosun.common.status.DesiredCondition.isFalse;
import static dev.bosun.common.status.DesiredCondition.isTrue;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.common.status.ConditionTable;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import java.util.List;
import java.util.Optional;

/**
 * The Ready and Degraded conditions of a sync, from what its round found: a {@link ConditionTable}
 * with one rule per condition. Pure.
 */
final class SyncConditions {

  static final String READY = "Ready";
  static final String DEGRADED = "Degraded";

  private static final ConditionTable<Finding> CONDITIONS =
      ConditionTable.<Finding>builder()
          .row(READY, SyncConditions::ready)
          .row(DEGRADED, SyncConditions::degraded)
          .build();

  private SyncConditions() {}

  /**
   * What a round found: the problem that stopped it before any copy (its reason and sentence), or
   * else the per-destination results.
   */
  private record Finding(String stopReason, String stopMessage, List<DestinationResult> results) {

    static Finding stopped(String reason, String message) {
      return new Finding(reason, message, List.of());
    }

    boolean isStopped() {
      return stopReason != null;
    }

    /** The first destination not synced. */
    Optional<DestinationResult> problem() {
      return results.stream().filter(r -> r.state() != State.SYNCED).findFirst();
    }

    long synced() {
      return results.stream().filter(r -> r.state() == State.SYNCED).count();
    }

    /** What both conditions say of the destinations. */
    String message() {
      return problem()
          .map(
              p ->
                  synced()
                      + " of "
                      + results.size()
                      + " destinations synced; "
                      + p.namespace()
                      + ": "
                      + p.message())
          .orElse("copied to all " + synced() + " destination namespaces");
    }
  }

  /** A spec the copies cannot follow: nothing is written or deleted until it is fixed. */
  static List<DesiredCondition> invalidSpec(List<String> problems) {
    String message =
        HumanMessages.bounded(
            AdmissionReviews.PREFIX + String.join("; ", problems), 2 * HumanMessages.MAX_LENGTH);
    return CONDITIONS.decide(Finding.stopped("InvalidSpec", message));
  }

  /** The source is missing, or is there but not marked for syncing ({@code unmarked}). */
  static List<DesiredCondition> sourceNotFound(
      String kindName, String ns, String sourceName, boolean unmarked) {
    String why =
        unmarked
            ? kindName
                + " "
                + ns
                + "/"
                + sourceName
                + " is not marked for syncing: its owner must label it "
                + ConfigSyncOperator.SOURCE_LABEL
                + "=true and list destinations in annotation "
                + ConfigSyncOperator.ALLOW_SYNC_TO
            : kindName + " " + ns + "/" + sourceName + " does not exist";
    return CONDITIONS.decide(Finding.stopped("SourceNotFound", why));
  }

  /** The conditions of a sync whose source exists, from its per-destination results. */
  static List<DesiredCondition> of(List<DestinationResult> results) {
    return CONDITIONS.decide(new Finding(null, null, results));
  }

  /** Ready: every destination holds the copy. */
  private static DesiredCondition ready(Finding f) {
    if (f.isStopped()) {
      return isFalse(READY, f.stopReason(), f.stopMessage());
    }
    if (f.results().isEmpty()) {
      return isFalse(READY, "NoDestinations", "no destination namespace is named or matches");
    }
    return f.problem()
        .map(p -> isFalse(READY, reason(p.state()), f.message()))
        .orElseGet(() -> isTrue(READY, "Synced", f.message()));
  }

  /** Degraded: the round stopped, or a destination has no up-to-date copy. */
  private static DesiredCondition degraded(Finding f) {
    if (f.isStopped()) {
      return isTrue(DEGRADED, f.stopReason(), f.stopMessage());
    }
    if (f.results().isEmpty()) {
      return isFalse(DEGRADED, "AsExpected", "no problem observed");
    }
    return f.problem()
        .map(p -> isTrue(DEGRADED, reason(p.state()), f.message()))
        .orElseGet(() -> isFalse(DEGRADED, "AsExpected", f.message()));
  }

  private static String reason(State state) {
    return switch (state) {
      case CONFLICT -> "Conflict";
      case NOT_ALLOWED -> "NotAllowed";
      default -> "SyncError";
    };
  }

  /** A synced destination holds the content of this source version. */
  static List<DestinationResult> atVersion(List<DestinationResult> results, String version) {
    return results.stream()
        .map(
            r ->
                r.state() == State.SYNCED
                    ? new DestinationResult(r.namespace(), r.state(), version, r.message())
                    : r)
        .toList();
  }

  /**
   * Whether a destination failed in a way that can clear without an event this sync hears of (a
   * conflicting object removed, a write error); NotAllowed waits for a namespace change, which the
   * namespace informer announces.
   */
  static boolean recheck(List<DestinationResult> results) {
    return results.stream()
        .anyMatch(r -> r.state() != State.SYNCED && r.state() != State.NOT_ALLOWED);
  }
}
