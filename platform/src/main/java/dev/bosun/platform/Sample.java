package dev.bosun.platform;

import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A sample from an operator's samples/ folder and the namespace the main job applies it in; a
 * MySQLCluster sample names the cluster and its instance count, for which the main job starts
 * MariaDB servers first on the local machine.
 */
public record Sample(String file, String namespace, String mysqlCluster, int mysqlInstances) {

  Sample(String file, String namespace) {
    this(file, namespace, null, 0);
  }

  /** One sample of each operator, applied by the main job. */
  public static final List<Sample> ALL =
      List.of(
          // A CA bundle synced from the platform namespace into team-a, a web service there,
          // and a monitor that rolls it when the bundle changes.
          new Sample("configsync-operator/samples/configmapsync.yaml", "platform"),
          new Sample("webservice-operator/samples/hello-web.yaml", "team-a"),
          new Sample("configsync-operator/samples/configmonitor.yaml", "team-a"),
          // The etcd cluster the team's service would use (the EtcdBackup sample writes to AWS S3,
          // which this machine cannot reach: not applied).
          new Sample("etcd-operator/samples/etcdcluster.yaml", "team-a"),
          // Its database, in the flavour this machine can run (MariaDB).
          new Sample("mysql-operator/samples/catalog-db-mariadb.yaml", "team-a", "catalog-db", 3));

  /** Creates {@code name} unless it exists. */
  static void namespace(KubernetesClient client, String name) {
    if (client.namespaces().withName(name).get() == null) {
      Crds.namespace(client, name, Map.of(), Map.of());
    }
  }

  /** Creates the namespace if needed and applies the file's objects (server-side apply). */
  void apply(KubernetesClient client, Path repo) {
    namespace(client, namespace);
    try {
      Resources.apply(client, namespace, Files.readString(repo.resolve(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
