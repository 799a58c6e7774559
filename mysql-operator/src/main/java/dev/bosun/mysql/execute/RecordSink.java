package dev.bosun.mysql.execute;

/**
 * Stores a topology record durably (the cluster's status) before the executor acts on it, so an
 * operator that dies after the action finds what it did.
 */
@FunctionalInterface
public interface RecordSink {

  /** Stores the record; throws when it could not, and the action is then not taken. */
  void save(TopologyRecord record) throws InstanceException;
}
