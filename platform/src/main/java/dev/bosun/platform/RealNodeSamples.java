package dev.bosun.platform;

import dev.bosun.common.testing.LocalNode;
import dev.bosun.common.testing.RealNodeCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The samples as the real node can run them. The samples name images from public registries, which
 * this machine cannot reach; only Debian's MariaDB 10.11, etcd 3.4 and busybox exist here, in the
 * node's workloads image. So each sample's workload image is pointed at that image (under a name of
 * its own), and the WebService sample, whose image is a placeholder, serves its greeting with
 * busybox httpd. Everything else in the samples is applied as written.
 */
public final class RealNodeSamples {

  static final String ETCD_REPOSITORY = "docker.io/bosun/etcd";
  public static final String MARIADB_IMAGE = "docker.io/bosun/mariadb:10.11";
  static final String WEB_IMAGE = "docker.io/bosun/hello-web:1.0.0";

  /** Serves $GREETING and a /healthz page with busybox httpd on 8080, as the sample expects. */
  static final List<String> WEB_COMMAND =
      List.of(
          "sh",
          "-c",
          "mkdir -p /tmp/www && echo \"$GREETING\" > /tmp/www/index.html"
              + " && echo ok > /tmp/www/healthz && exec httpd -f -p 8080 -h /tmp/www");

  private final LocalNode node;

  public RealNodeSamples(RealNodeCluster cluster) {
    this.node = cluster.node();
    node.tagImage(node.workloadsImage(), MARIADB_IMAGE);
    node.tagImage(node.workloadsImage(), WEB_IMAGE);
  }

  /** Applies the sample's objects (server-side), adapted to the node's images. */
  public void apply(KubernetesClient client, Path repo, Sample sample) {
    Sample.namespace(client, sample.namespace());
    String yaml;
    try {
      yaml = Files.readString(repo.resolve(sample.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<HasMetadata> objects = client.resourceList(yaml).items();
    for (HasMetadata object : objects) {
      if (object instanceof GenericKubernetesResource r) {
        adapt(r);
      }
    }
    client
        .resourceList(objects)
        .inNamespace(sample.namespace())
        .fieldManager("e2e-user")
        .forceConflicts()
        .serverSideApply();
  }

  @SuppressWarnings("unchecked")
  private void adapt(GenericKubernetesResource r) {
    Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
    switch (r.getKind()) {
      case "WebService" -> {
        spec.put("image", WEB_IMAGE);
        spec.put("imagePullPolicy", "IfNotPresent");
        spec.put("command", WEB_COMMAND);
        // busybox's image runs as root; WebServices run non-root by default.
        spec.put("securityContext", Map.of("runAsUser", 65532));
      }
      case "EtcdCluster" -> {
        spec.put("repository", ETCD_REPOSITORY);
        node.tagImage(node.workloadsImage(), ETCD_REPOSITORY + ":v" + spec.get("version"));
      }
      case "MySQLCluster" -> spec.put("image", MARIADB_IMAGE);
      default -> {
        // ConfigMapSync, ConfigMonitor and the plain objects run as written.
      }
    }
  }
}
