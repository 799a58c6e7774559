package dev.bosun.mysql.execute;

import java.util.List;

/**
 * Named points between the actions of a failover or switchover. Production ignores them; drills
 * stop the executor at one to prove that an operator dying there loses nothing.
 */
@FunctionalInterface
public interface FailoverBoundaries {

  /**
   * The failover step begins (observation and planning are done); nothing has changed yet. A time
   * mark only: not in {@link #ALL}, since dying here is dying before the step.
   */
  String STARTED = "failover-started";

  /** After every candidate stopped receiving from the old primary. */
  String RECEIVING_STOPPED = "receiving-stopped";

  /** After the old primary, if it answered, was made read-only and its clients disconnected. */
  String OLD_PRIMARY_FENCED = "old-primary-fenced";

  /**
   * The candidate is chosen, before it applies what it received. A time mark only: the servers are
   * as at {@link #OLD_PRIMARY_FENCED}.
   */
  String CANDIDATE_CHOSEN = "candidate-chosen";

  /** After the chosen candidate applied everything it received. */
  String CANDIDATE_CAUGHT_UP = "candidate-caught-up";

  /** After the intent (candidate, promotion point) was recorded in status. */
  String INTENT_RECORDED = "intent-recorded";

  /** After the candidate was opened for writes, before the result was recorded. */
  String PROMOTED = "promoted";

  /** After the other candidates were pointed at the new primary, before the result was recorded. */
  String REPLICAS_REPOINTED = "replicas-repointed";

  /** Every boundary after which the servers differ, in the order a failover passes them. */
  List<String> ALL =
      List.of(
          RECEIVING_STOPPED,
          OLD_PRIMARY_FENCED,
          CANDIDATE_CAUGHT_UP,
          INTENT_RECORDED,
          PROMOTED,
          REPLICAS_REPOINTED);

  /** Called when the executor reaches a boundary; may throw to stop it there. */
  void reached(String boundary);

  /** Production: nothing happens at a boundary. */
  static FailoverBoundaries none() {
    return boundary -> {};
  }
}
