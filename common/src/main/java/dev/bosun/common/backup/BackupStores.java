package dev.bosun.common.backup;

import dev.bosun.common.meta.SecretValues;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Turns a backup's {@code spec.store} into the store and key prefix its backups use, the same way
 * for every backup kind. Keys always lie under {@code <namespace>/}, so no backup can write, list
 * or delete (retention) another namespace's backups.
 */
public final class BackupStores {

  /** Secret keys of S3 credentials. */
  public static final String ACCESS_KEY_ID = "accessKeyId";

  public static final String SECRET_ACCESS_KEY = "secretAccessKey";

  private final KubernetesClient client;
  private final Optional<Path> volumeRoot;
  private final String volumeHint;

  /**
   * @param volumeRoot the operator's backup directory (a volume mounted into its Pod), if any
   * @param volumeHint how an administrator gives the operator that volume (its chart value)
   */
  public BackupStores(KubernetesClient client, Optional<Path> volumeRoot, String volumeHint) {
    this.client = client;
    this.volumeRoot = volumeRoot;
    this.volumeHint = volumeHint;
  }

  /** The store and key prefix of {@code backup} for {@code cluster} (its spec.clusterName). */
  public BackupTarget open(HasMetadata backup, String cluster, BackupStoreSpec spec)
      throws BackupStoreException {
    Checked checked = check(backup, cluster, spec);
    if (spec.volume() != null) {
      return new BackupTarget(
          new FileSystemBackupStore(volumeRoot.orElseThrow()), checked.prefix());
    }
    return new BackupTarget(
        new S3BackupStore(
            checked.location(),
            credentials(backup.getMetadata().getNamespace(), spec.s3().credentialsSecret().name())),
        checked.prefix());
  }

  /**
   * What is wrong with {@code spec} that {@link #open} would report as InvalidSpec, found without
   * reading anything (the admission webhook asks before the backup is stored); empty when nothing.
   */
  public Optional<String> problem(HasMetadata backup, String cluster, BackupStoreSpec spec) {
    try {
      check(backup, cluster, spec);
      return Optional.empty();
    } catch (BackupStoreException e) {
      return Optional.of(e.getMessage());
    }
  }

  /**
   * Everything a backup's reconciler reports as InvalidSpec without reading anything: its {@code
   * spec.schedule} (null: one-shot) and its store. The admission webhooks of every operator with
   * backups ask this.
   */
  public List<String> specProblems(
      HasMetadata backup, String schedule, String cluster, BackupStoreSpec spec) {
    List<String> problems = new ArrayList<>();
    BackupTiming.scheduleProblem(schedule).ifPresent(problems::add);
    problem(backup, cluster, spec).ifPresent(problems::add);
    return problems;
  }

  /** A spec whose every field is usable: its key prefix, and for S3 where the bucket is. */
  private record Checked(String prefix, S3Location location) {}

  private Checked check(HasMetadata backup, String cluster, BackupStoreSpec spec)
      throws BackupStoreException {
    String ns = backup.getMetadata().getNamespace();
    String prefix = prefix(ns, cluster, backup.getMetadata().getName(), spec);
    if (spec.volume() != null) {
      if (volumeRoot.isEmpty()) {
        throw invalid(
            "store.volume needs the operator's backup volume ("
                + volumeHint
                + "); use store.s3 otherwise");
      }
      return new Checked(prefix, null);
    }
    var s3 = spec.s3();
    // Checked before the Secret is read: a spec mistake needs no API call to be named.
    URI endpoint = endpoint(s3.endpoint());
    if (s3.credentialsSecret() == null || blank(s3.credentialsSecret().name())) {
      throw invalid("store.s3.credentialsSecret.name is required");
    }
    try {
      return new Checked(
          prefix,
          new S3Location(
              endpoint,
              blank(s3.region()) ? "us-east-1" : s3.region(),
              s3.bucket(),
              "",
              !Boolean.FALSE.equals(s3.pathStyle())));
    } catch (IllegalArgumentException e) {
      // S3Location names the rule a value breaks, in a sentence.
      throw invalid("store.s3: " + e.getMessage());
    }
  }

  /**
   * The key prefix of a backup's objects: {@code <store prefix>/<backup name>/}, the store prefix
   * defaulting to {@code <namespace>/<cluster>}; a configured prefix that does not start with
   * {@code <namespace>/} is put below it.
   */
  public static String prefix(String ns, String cluster, String backupName, BackupStoreSpec spec)
      throws BackupStoreException {
    if (spec == null || (spec.volume() == null) == (spec.s3() == null)) {
      throw invalid("store takes exactly one of volume or s3");
    }
    String field = spec.volume() != null ? "store.volume.prefix" : "store.s3.prefix";
    String configured = spec.volume() != null ? spec.volume().prefix() : spec.s3().prefix();
    String base = configured == null ? ns + "/" + cluster : configured.replaceAll("^/+|/+$", "");
    if (!base.equals(ns) && !base.startsWith(ns + "/")) {
      base = base.isEmpty() ? ns : ns + "/" + base;
    }
    try {
      return BackupKeys.validatePrefix(base + "/" + backupName + "/");
    } catch (IllegalArgumentException e) {
      throw invalid(field + ": " + e.getMessage());
    }
  }

  private static URI endpoint(String endpoint) throws BackupStoreException {
    if (blank(endpoint)) {
      throw invalid("store.s3.endpoint is required");
    }
    try {
      return new URI(endpoint);
    } catch (URISyntaxException e) {
      throw invalid("store.s3.endpoint " + endpoint + " is not a valid URL");
    }
  }

  private S3Credentials credentials(String ns, String name) throws BackupStoreException {
    Secret secret = client.secrets().inNamespace(ns).withName(name).get();
    if (secret == null) {
      throw new BackupStoreException(
          BackupStoreException.STORE_UNAVAILABLE,
          "Secret " + name + " with the S3 credentials does not exist");
    }
    String id = value(secret, ACCESS_KEY_ID);
    String key = value(secret, SECRET_ACCESS_KEY);
    if (id == null || key == null) {
      throw new BackupStoreException(
          BackupStoreException.STORE_UNAVAILABLE,
          "Secret "
              + name
              + " needs non-empty keys "
              + ACCESS_KEY_ID
              + " and "
              + SECRET_ACCESS_KEY);
    }
    return new S3Credentials(id, key);
  }

  /** A credential, trimmed: a trailing newline (echo into a file) is no part of the key. */
  private static String value(Secret s, String key) {
    return SecretValues.value(s, key).map(String::trim).filter(v -> !v.isEmpty()).orElse(null);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static BackupStoreException invalid(String message) {
    return new BackupStoreException(BackupStoreException.INVALID_SPEC, message);
  }
}
