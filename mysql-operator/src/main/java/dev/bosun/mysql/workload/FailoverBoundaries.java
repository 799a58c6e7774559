package dev.bosun.mysql.workload;

/**
 * Named points between the actions of a failover or switchover. Production ignores them; drills
 * stop the executor at one to prove that an operator dying there loses nothing.
 */
@FunctionalInterface
public interface FailoverBoundaries {

  /** After every candidate stopped receiving from the old primary. */
  String RECEIVING_STOPPED = "receiving-stopped";

  /** After the old primary, if it answered, was made read-only and its clients disconnected. */
  String OLD_PRIMARY_FENCED = "old-primary-fenced";

  /** After the chosen candidate applied everything it received. */
  String CANDIDATE_CAUGHT_UP = "candidate-caught-up";

  /** After the intent (candidate, promotion point) was recorded in status. */
  String INTENT_RECORDED = "intent-recorded";

  /** After the candidate was opened for writes, before the result was recorded. */
  String PROMOTED = "promoted";

  /** Every boundary, in the order a failover passes them. */
  java.util.List<String> ALL =
      java.util.List.of(
          RECEIVING_STOPPED, OLD_PRIMARY_FENCED, CANDIDATE_CAUGHT_UP, INTENT_RECORDED, PROMOTED);

  /** Called when the executor reaches a boundary; may throw to stop it there. */
  void reached(String boundary);

  /** Production: nothing happens at a boundary. */
  static FailoverBoundaries none() {
    return boundary -> {};
  }
}
