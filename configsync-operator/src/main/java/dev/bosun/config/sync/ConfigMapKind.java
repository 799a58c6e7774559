package dev.bosun.config.sync;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.Map;

/** ConfigMaps: {@code data} and {@code binaryData} are copied. */
public final class ConfigMapKind implements SyncedKind<ConfigMap> {

  @Override
  public Class<ConfigMap> type() {
    return ConfigMap.class;
  }

  @Override
  public String syncKind() {
    return "ConfigMapSync";
  }

  @Override
  public String hash(ConfigMap cm) {
    return ContentHash.start()
        .add("data", cm.getData())
        .add("binaryData", cm.getBinaryData())
        .hex();
  }

  @Override
  public ConfigMap copy(
      ConfigMap source,
      String name,
      String namespace,
      Map<String, String> labels,
      Map<String, String> annotations) {
    return new ConfigMapBuilder()
        .withMetadata(SyncedKind.copyMetadata(name, namespace, labels, annotations))
        .withData(source.getData())
        .withBinaryData(source.getBinaryData())
        .build();
  }
}
