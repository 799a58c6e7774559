package dev.bosun.mysql.execute;

import dev.bosun.mysql.plan.Address;

/**
 * Loads a cluster's fromBackup into its first primary in the background, off the reconcile threads;
 * the replication loop looks at its progress every round.
 */
public interface Restorer {

  /** The load of this cluster in this operator process: null when there is none. */
  record Progress(boolean running, String location, String failure) {}

  /** Starts the load into {@code primary}; false when it could not be queued now. */
  boolean start(Address primary);

  /** This cluster's load, or null when this process has none (never started, or forgotten). */
  Progress progress();

  /** Forgets a finished load once its result is recorded. */
  void forget();
}
