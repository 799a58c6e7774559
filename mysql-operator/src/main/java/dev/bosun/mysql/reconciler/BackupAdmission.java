package dev.bosun.mysql.reconciler;

import dev.bosun.common.admission.AdmissionRules;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import java.util.List;

/**
 * The admission webhook's rules for MySQLBackups: what the reconciler reports as InvalidSpec
 * without reading anything (a schedule that does not parse, a store that is not exactly one of
 * volume or s3, a prefix or S3 location it cannot use, a volume the operator does not have).
 */
public final class BackupAdmission implements AdmissionRules<MySQLBackup> {

  /** The route the webhook configuration sends MySQLBackup reviews to. */
  public static final String PATH = "/validate/mysqlbackups";

  private final MySQLBackupStores stores;

  /** Judges stores as {@code stores} would open them. */
  public BackupAdmission(MySQLBackupStores stores) {
    this.stores = stores;
  }

  @Override
  public List<String> problems(MySQLBackup object, MySQLBackup old) {
    return stores.specProblems(object);
  }
}
