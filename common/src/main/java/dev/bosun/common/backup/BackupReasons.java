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

  /** Ready=False: a scheduled backup waits for its first run. */
  public static final String SCHEDULED = "Scheduled";

  /** Progressing=True: a backup is being taken. */
  public static final String BACKING_UP = "BackingUp";

  /** Progressing=True: a backup waits for a free worker of the operator's backup pool. */
  public static final String QUEUED = "Queued";

  /** Progressing=False: no backup is running; the next one waits for its time, if any. */
  public static final String IDLE = "Idle";

  /** Degraded=False: the last attempt did not fail. */
  public static final String WORKING = "BackupsWorking";

  /** Degraded=True: the last attempt failed. */
  public static final String FAILING = "BackupsFailing";

  private BackupReasons() {}
}
