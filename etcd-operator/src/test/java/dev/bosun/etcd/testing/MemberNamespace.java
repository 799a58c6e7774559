package dev.bosun.etcd.testing;

import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.UUID;

/**
 * A test's own namespace with a {@link ProcessKubelet} running its member Pods; closing stops the
 * processes and deletes the namespace.
 */
public final class MemberNamespace implements AutoCloseable {

  public final String name;
  public final ProcessKubelet kubelet;
  private final KubernetesClient client;

  private MemberNamespace(KubernetesClient client, String name, ProcessKubelet kubelet) {
    this.client = client;
    this.name = name;
    this.kubelet = kubelet;
  }

  /**
   * A namespace {@code <prefix>-<random>} whose Pods the kubelet configured by {@code setup} runs.
   */
  public static MemberNamespace create(
      KubernetesClient client,
      String prefix,
      java.util.function.UnaryOperator<ProcessKubelet> setup) {
    String ns =
        Crds.namespace(
            client,
            prefix + "-" + UUID.randomUUID().toString().substring(0, 6),
            Map.of(),
            Map.of());
    try {
      ProcessKubelet kubelet =
          setup
              .apply(
                  new ProcessKubelet(
                      client, ns, Files.createTempDirectory("process-kubelet-" + ns)))
              .start();
      return new MemberNamespace(client, ns, kubelet);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    kubelet.close();
    client.namespaces().withName(name).delete();
  }
}
