package dev.bosun.common.backup;

/**
 * The condition and Event reasons EtcdBackup and MySQLBackup share, so that one backup API also
 * reports alike: a person (or an alert rule) reads the same reason for the same situation.
 */
public final class BackupReasons {

  /** Ready=True: the last backup was written and recorded. Also the Normal Event. */
  public static final String SUCCEEDED = "BackupSucceeded";

  /** Ready=False: the last attempt failed; retried. Also the Warning Event. */
  public static final String FAILED = "BackupFailed";

  /** Ready=False: the cluster to back up does not exist (yet) or cannot be backed up now. */
  public static final String WAITING_FOR_CLUSTER = "WaitingForCluster";

  /** Degraded=False: the last attempt did not fail. */
  public static final String WORKING = "BackupsWorking";

  /** Degraded=True: the last attempt failed. */
  public static final String FAILING = "BackupsFailing";

  private BackupReasons() {}
}
