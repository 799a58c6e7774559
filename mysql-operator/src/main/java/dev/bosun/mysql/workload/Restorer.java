package dev.bosun.mysql.workload;

import dev.bosun.mysql.topology.Address;

/** Loads a cluster's fromBackup into its first primary. */
@FunctionalInterface
public interface Restorer {

  /** Loads the dump into the server at {@code primary}; returns the dump's location. */
  String restore(Address primary) throws Exception;
}
