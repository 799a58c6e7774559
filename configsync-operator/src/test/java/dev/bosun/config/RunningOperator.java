package dev.bosun.config;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.WriteCounter;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.UUID;

/** The configsync operator as Main runs it, on the shared control plane, for integration tests. */
public final class RunningOperator implements AutoCloseable {

  /** The operator's three CRDs. */
  public static final String[] CRDS = {
    "configmapsyncs.config.bosun.dev",
    "secretsyncs.config.bosun.dev",
    "configmonitors.config.bosun.dev"
  };

  public final WriteCounter writes = new WriteCounter();
  public final KubernetesClient client =
      ControlPlaneExtension.controlPlane()
          .adminClient(b -> b.addOrReplaceInterceptor("writes", writes));
  private OperatorRuntime runtime;

  public RunningOperator() {
    Crds.install(client, CRDS);
  }

  public RunningOperator start() {
    runtime =
        Main.create(OperatorSettings.local(ConfigSyncOperator.NAME).withHttpPort(-1), client, true)
            .start();
    return this;
  }

  public void stop() {
    runtime.close();
    runtime = null;
  }

  @Override
  public void close() {
    if (runtime != null) {
      stop();
    }
    client.close();
  }

  /** Creates a namespace with a unique name, labels and annotations. */
  public static String namespace(
      KubernetesClient client,
      String prefix,
      Map<String, String> labels,
      Map<String, String> annotations) {
    return Crds.namespace(
        client, prefix + "-" + UUID.randomUUID().toString().substring(0, 6), labels, annotations);
  }
}
