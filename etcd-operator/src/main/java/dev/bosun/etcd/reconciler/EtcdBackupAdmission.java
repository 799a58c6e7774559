package dev.bosun.etcd.reconciler;

import dev.bosun.common.admission.AdmissionRules;
import dev.bosun.etcd.backup.EtcdBackupStores;
import dev.bosun.etcd.v1alpha1.EtcdBackup;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The admission webhook's rules for EtcdBackups: what the reconciler reports as InvalidSpec without
 * reading anything (a schedule that does not parse, a prefix or S3 location it cannot use, a volume
 * the operator does not have).
 */
public final class EtcdBackupAdmission implements AdmissionRules<EtcdBackup> {

  /** The route the webhook configuration sends EtcdBackup reviews to. */
  public static final String PATH = "/validate/etcdbackups";

  private final KubernetesClient client;
  private final Optional<Path> backupDir;

  /** Judges stores as the reconciler opens them, with the operator's {@code backupDir}. */
  public EtcdBackupAdmission(KubernetesClient client, Optional<Path> backupDir) {
    this.client = client;
    this.backupDir = backupDir;
  }

  @Override
  public List<String> problems(EtcdBackup object, EtcdBackup old) {
    return EtcdBackupStores.specProblems(client, backupDir, object);
  }
}
