package dev.bosun.etcd.restore;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.bosun.common.transfer.ArtifactRoute;
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
 * {@code GET /restore/v1/<namespace>/<cluster>} on the operator's HTTPS restore port: the snapshot
 * a cluster restored from the operator's backup volume starts from, for its first member's init
 * container ({@link ArtifactRoute} with the cluster's {@link RestoreSecrets restore Secret}). Only
 * the key the Secret names is served, only from under {@code <backup dir>/<namespace>/} ({@link
 * SnapshotFiles}). Every replica can answer: all of them mount the same volume.
 */
public final class SnapshotRoute implements HttpHandler {

  /** The route's path; a cluster's snapshot is below it at {@code <namespace>/<cluster>}. */
  public static final String PATH = "/restore/v1";

  /** Snapshots sent at once; one more request thread answers the rest with 503 at once. */
  public static final int CONCURRENT_TRANSFERS = ArtifactRoute.CONCURRENT_TRANSFERS;

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotRoute.class);

  /** Reads one Secret from the API server (null when it does not exist). */
  @FunctionalInterface
  public interface SecretReader extends ArtifactRoute.SecretReader {}

  private final ArtifactRoute route;

  /**
   * @param backupDir the operator's backup directory
   * @param namespaces the namespaces the operator watches (empty: all)
   * @param secrets how the restore Secret is read
   */
  public SnapshotRoute(Path backupDir, Set<String> namespaces, SecretReader secrets) {
    this.route = new ArtifactRoute(PATH, namespaces, secrets, new Snapshots(backupDir));
  }

  /** The route reading Secrets through the operator's client. */
  public static SnapshotRoute of(Path backupDir, Set<String> namespaces, KubernetesClient client) {
    return new SnapshotRoute(
        backupDir, namespaces, (ns, name) -> client.secrets().inNamespace(ns).withName(name).get());
  }

  /** The URL a member Pod fetches the snapshot of {@code namespace}/{@code cluster} from. */
  public static URI url(URI operatorUrl, String namespace, String cluster) {
    return ArtifactRoute.url(operatorUrl, PATH, namespace, cluster);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    route.handle(exchange);
  }

  /** The snapshot file a cluster's restore Secret names on the backup volume. */
  private record Snapshots(Path backupDir) implements ArtifactRoute.Artifacts {

    @Override
    public String secretName(String cluster) {
      return RestoreSecrets.name(cluster);
    }

    @Override
    public boolean isFor(Secret secret, String cluster) {
      return RestoreSecrets.isFor(secret, cluster);
    }

    @Override
    public Optional<ArtifactRoute.Artifact> resolve(String ns, String cluster, Secret grant) {
      String key = RestoreSecrets.key(grant).orElse("");
      Optional<Path> file = SnapshotFiles.resolve(backupDir, ns, key);
      if (file.isEmpty()) {
        LOG.warn(
            "the restore of {}/{} names snapshot '{}', which is no file under the namespace's"
                + " backup directory",
            ns,
            cluster,
            key);
      }
      return file.map(f -> new ArtifactRoute.Artifact(f, "volume:" + key));
    }
  }
}
