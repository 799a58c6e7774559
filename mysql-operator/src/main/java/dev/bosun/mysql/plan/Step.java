package dev.bosun.mysql.plan;

import java.util.List;
import java.util.Set;

/** The one thing the executor does next; the planner returns exactly one. */
public sealed interface Step {

  /** Nothing to do: the topology is as desired. */
  record Steady() implements Step {}

  /** Wait for something that will change by itself (a reason for conditions, a message). */
  record Wait(String reason, String message) implements Step {}

  /** The operator will not act without a person: the reason and what to do. */
  record Blocked(String reason, String message) implements Step {}

  /** An instance already takes writes and no primary is recorded: record it as the primary. */
  record Adopt(String instance) implements Step {}

  /** Stop writes on an instance that must not take them. */
  record Fence(String instance) implements Step {}

  /**
   * Stop a member the cluster keeps out (errant transactions, broken replication) from receiving
   * from the primary: its receiver would acknowledge semi-sync commits that a failover, which never
   * promotes it, would not find on any candidate.
   */
  record Detach(String instance, String primary) implements Step {}

  /** Point a replica at the primary. */
  record Attach(String instance, String primary) implements Step {}

  /**
   * Make an instance the primary (why: Bootstrap, FullClusterRestart, RestartedPrimary); {@code
   * writable} false leaves it read-only until its data is compared with a replica's.
   */
  record Promote(String instance, String why, boolean writable) implements Step {

    /** A promotion that opens the instance for writes. */
    public Promote(String instance, String why) {
      this(instance, why, true);
    }
  }

  /**
   * Replace an unreachable primary: let the candidates apply what they received, then promote the
   * most advanced one without errant transactions; one in {@code readOnlyIfChosen} is promoted
   * read-only, to take writes once its data is compared with every other member's.
   */
  record Failover(String oldPrimary, List<String> candidates, Set<String> readOnlyIfChosen)
      implements Step {

    /** A failover whose new primary takes writes at once, whichever is chosen. */
    public Failover(String oldPrimary, List<String> candidates) {
      this(oldPrimary, candidates, Set.of());
    }
  }

  /** Hand the primary role over: fence the primary, let the target catch up, promote it. */
  record Switchover(String from, String to, String why) implements Step {}

  /** Turn semi-sync on or off on the primary. */
  record SemiSync(String primary, boolean on) implements Step {}

  /**
   * Start loading the cluster's fromBackup into the primary (in the background) before any replica
   * is attached.
   */
  record Restore(String primary) implements Step {}

  /**
   * fromBackup is not loaded: members already hold data (a cluster re-created over its kept
   * volumes). A restore goes only into members proven empty; this records that it was left out.
   */
  record RestoreSkipped(String primary, List<String> holding) implements Step {}

  /** The background load finished: record where from, once. */
  record RestoreDone(String primary, String location) implements Step {}

  /**
   * Rebuild a replica: export its errant transactions (those beyond {@code errantAfter}; none when
   * null), wipe it and copy a consistent snapshot of {@code source} into it, in the background.
   */
  record Rebuild(String instance, String source, String why, String errantAfter) implements Step {}

  /**
   * A replica whose server cannot finish crash recovery ({@code evidence}) gets a new, empty
   * volume: the old one is kept, the member starts empty and is then rebuilt by copy. Repeated
   * until the member answers (a Pod made again on the old claim while it was deleted is deleted
   * once more).
   */
  record ReplaceVolume(String instance, String evidence) implements Step {}

  /** The background copy finished (or failed): record it, once. */
  record RebuildDone(String instance, String failure) implements Step {}

  /**
   * Record the server starts of members seen for the first time (or that cannot be compared), so a
   * later restart shows; {@code why} is FirstSeen, Unsupported or NothingToCompare.
   */
  record RecordServerStarts(java.util.Map<String, Long> starts, String why) implements Step {}

  /**
   * Compare a replica's data with the primary's at one position: pin both (the replica's applier
   * stops at the primary's snapshot and resumes at once), then compare every table in the
   * background. {@code suspect} is the side not known good (the replica or the primary), or null
   * when neither is; {@code why} is Restarted, NeverCompared, Disproved or NeitherKnownGood; the
   * starts are those seen when the check was planned.
   */
  record CheckContent(
      String replica,
      String primary,
      String suspect,
      String why,
      long replicaStart,
      long primaryStart)
      implements Step {}

  /** A comparison ended: record it, once (a differing replica is kept out until rebuilt). */
  record ContentChecked(ContentState.Finished result) implements Step {}
}
