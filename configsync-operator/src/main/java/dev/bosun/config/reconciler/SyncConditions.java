package dev.bosun.config.reconciler;

import static dev.bosun.common.status.DesiredCondition.isFalse;
import static dev.bosun.common.status.DesiredCondition.isTrue;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import java.util.List;
import java.util.Optional;

/** The Ready and Degraded conditions of a sync, from what its round found. Pure. */
final class SyncConditions {

  static final String READY = "Ready";
  static final String DEGRADED = "Degraded";

  private SyncConditions() {}

  /** A spec the copies cannot follow: nothing is written or deleted until it is fixed. */
  static List<DesiredCondition> invalidSpec(List<String> problems) {
    String message =
        HumanMessages.bounded(
            AdmissionReviews.PREFIX + String.join("; ", problems), 2 * HumanMessages.MAX_LENGTH);
    return List.of(
        isFalse(READY, "InvalidSpec", message), isTrue(DEGRADED, "InvalidSpec", message));
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
    return List.of(isFalse(READY, "SourceNotFound", why), isTrue(DEGRADED, "SourceNotFound", why));
  }

  /** The conditions of a sync whose source exists, from its per-destination results. */
  static List<DesiredCondition> of(List<DestinationResult> results) {
    if (results.isEmpty()) {
      return List.of(
          isFalse(READY, "NoDestinations", "no destination namespace is named or matches"),
          isFalse(DEGRADED, "AsExpected", "no problem observed"));
    }
    long synced = results.stream().filter(r -> r.state() == State.SYNCED).count();
    Optional<DestinationResult> problem =
        results.stream().filter(r -> r.state() != State.SYNCED).findFirst();
    if (problem.isEmpty()) {
      String message = "copied to all " + synced + " destination namespaces";
      return List.of(isTrue(READY, "Synced", message), isFalse(DEGRADED, "AsExpected", message));
    }
    String reason = reason(problem.get().state());
    String message =
        synced
            + " of "
            + results.size()
            + " destinations synced; "
            + problem.get().namespace()
            + ": "
            + problem.get().message();
    return List.of(isFalse(READY, reason, message), isTrue(DEGRADED, reason, message));
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
