package dev.bosun.mysql.backup;

/**
 * Confines every backup location to the namespace of the MySQLBackup that names it: a volume
 * directory is always under {@code <namespace>/} of the backup volume, an S3 prefix always starts
 * with {@code <namespace>/}. So one tenant's backup, restore or retention can never read or delete
 * another namespace's dumps.
 */
public final class BackupLocations {

  private BackupLocations() {}

  /** The directory (relative to the backup volume) of a backup; null directory = its name. */
  public static String volumeDirectory(String namespace, String backupName, String directory)
      throws BackupStores.StoreException {
    String relative = directory == null ? backupName : strip(directory);
    check(relative, "storage.volume.directory");
    return namespace + "/" + relative;
  }

  /** The S3 key prefix of a backup (without a trailing slash); null prefix = the namespace. */
  public static String s3Prefix(String namespace, String prefix)
      throws BackupStores.StoreException {
    if (prefix == null || strip(prefix).isEmpty()) {
      return namespace;
    }
    String relative = strip(prefix);
    check(relative, "storage.s3.prefix");
    return namespace + "/" + relative;
  }

  private static String strip(String path) {
    String p = path;
    while (p.startsWith("/")) {
      p = p.substring(1);
    }
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }

  private static void check(String relative, String field) throws BackupStores.StoreException {
    for (String part : relative.split("/")) {
      if (part.equals("..") || part.equals(".") || part.isEmpty()) {
        throw new BackupStores.StoreException(
            field + " must be a relative path without '.', '..' or empty parts");
      }
    }
  }
}
