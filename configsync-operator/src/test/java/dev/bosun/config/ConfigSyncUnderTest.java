package dev.bosun.config;

import dev.bosun.common.testing.Crds;
import dev.bosun.common.testing.RunningOperator;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.UUID;

/** The configsync operator as Main runs it, for integration tests on the shared control plane. */
public final class ConfigSyncUnderTest {

  /** The operator's three CRDs. */
  public static final String[] CRDS = {
    "configmapsyncs.config.bosun.dev",
    "secretsyncs.config.bosun.dev",
    "configmonitors.config.bosun.dev"
  };

  private ConfigSyncUnderTest() {}

  /** The operator, not yet started, with its HTTP port disabled. */
  public static RunningOperator operator() {
    return new RunningOperator(
        ConfigSyncOperator.NAME,
        (settings, operator) -> Main.create(settings, operator.client, true),
        CRDS);
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
