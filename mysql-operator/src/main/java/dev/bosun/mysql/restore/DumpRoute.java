package dev.bosun.mysql.restore;

import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.backup.BackupTarget;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.transfer.ArtifactRoute;
import dev.bosun.mysql.backup.MySQLBackupStores;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.execute.TopologyRecord;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLBackup;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the restore route ({@code GET /mysql-restore/v1/<namespace>/<cluster>}) serves: the checked
 * dump of a cluster's fromBackup, to the holder of the token in the cluster's {@link LoadSecrets
 * restore Secret}. The dump is the one the Secret names, and only if it is a key of the backup the
 * cluster's spec names; it is checked again by whichever operator replica serves it ({@link
 * CheckedDumps}), so what a Job loads never skipped the check.
 */
public final class DumpRoute implements ArtifactRoute.Artifacts {

  /** The route's path. */
  public static final String PATH = "/mysql-restore/v1";

  private static final Logger LOG = LoggerFactory.getLogger(DumpRoute.class);

  private final KubernetesClient client;
  private final MySQLBackupStores stores;
  private final CheckedDumps dumps;

  public DumpRoute(KubernetesClient client, MySQLBackupStores stores, CheckedDumps dumps) {
    this.client = client;
    this.stores = stores;
    this.dumps = dumps;
  }

  /** The route on the namespaces the operator watches (empty: all). */
  public ArtifactRoute route(Set<String> namespaces) {
    return new ArtifactRoute(
        PATH,
        namespaces,
        (ns, name) -> client.secrets().inNamespace(ns).withName(name).get(),
        this);
  }

  /** The URL the restore Job of {@code cluster} fetches its dump from. */
  public static URI url(URI operatorUrl, MySQLCluster cluster) {
    return ArtifactRoute.url(
        operatorUrl, PATH, cluster.getMetadata().getNamespace(), cluster.getMetadata().getName());
  }

  /** The restore's identity among checked dumps: one per cluster incarnation. */
  public static String restoreId(MySQLCluster cluster) {
    var meta = cluster.getMetadata();
    return meta.getNamespace() + "/" + meta.getName() + "/" + meta.getUid();
  }

  @Override
  public String secretName(String cluster) {
    return LoadSecrets.name(cluster);
  }

  @Override
  public boolean isFor(Secret secret, String cluster) {
    return LoadSecrets.isFor(secret, cluster);
  }

  /**
   * Whether the cluster's status says its load started and is not recorded as ended: a token left
   * behind by a load that finished (its Secret not deleted yet) is worth nothing.
   */
  private static boolean loading(MySQLCluster cluster) {
    String restoredFrom =
        cluster.getStatus() == null ? null : cluster.getStatus().getRestoredFrom();
    return TopologyRecord.RESTORE_LOADING.equals(restoredFrom);
  }

  @Override
  public Optional<ArtifactRoute.Artifact> resolve(String ns, String name, Secret grant)
      throws IOException {
    MySQLCluster cluster =
        client.resources(MySQLCluster.class).inNamespace(ns).withName(name).get();
    Optional<String> key = LoadSecrets.key(grant);
    if (cluster == null || key.isEmpty() || !loading(cluster)) {
      return Optional.empty();
    }
    ClusterModel m = ClusterModel.of(cluster);
    MySQLBackup backup =
        m.fromBackup() == null
            ? null
            : client.resources(MySQLBackup.class).inNamespace(ns).withName(m.fromBackup()).get();
    if (backup == null) {
      return Optional.empty();
    }
    try {
      BackupTarget target = stores.open(backup);
      // Only a key of the backup the spec names, whatever the Secret says.
      String dumpKey = target.restoreKey(key.get()).orElseThrow();
      Path file =
          dumps.prepare(restoreId(cluster), target.store(), dumpKey, SqlDialect.of(m.flavour()));
      return Optional.of(
          new ArtifactRoute.Artifact(file, "checked dump " + target.store().location(dumpKey)));
    } catch (IllegalArgumentException | InstanceException e) {
      LOG.warn("the restore of {}/{} gets no dump: {}", ns, name, e.getMessage());
      return Optional.empty();
    } catch (BackupStoreException e) {
      throw new IOException(HumanMessages.describe(e), e);
    }
  }
}
