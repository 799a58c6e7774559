package dev.bosun.config.reconciler;

import static dev.bosun.config.ConfigSyncOperator.MONITORED_LABEL;

import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.sync.ContentHash;
import dev.bosun.config.v1alpha1.ConfigMonitor;
import dev.bosun.config.v1alpha1.ConfigMonitorSpec;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The ConfigMaps and Secrets a monitor names, as one hash, or what of them is missing.
 *
 * @param hash the hash of all their content, when none is missing
 * @param missing those that do not exist, as "ConfigMap name" or "Secret name"
 */
record MonitoredConfiguration(String hash, List<String> missing) {

  /** Reads every object {@code spec} names in {@code ns}, in name order. */
  static MonitoredConfiguration read(
      ConfigMonitorSpec spec, String ns, Context<ConfigMonitor> context) {
    ContentHash hash = ContentHash.start();
    List<String> missing = new ArrayList<>();
    for (String name : new TreeSet<>(nonNull(spec.getConfigMaps()))) {
      observe(context, ConfigMap.class, ns, name)
          .ifPresentOrElse(
              c -> hash.add("ConfigMap/" + name, c.getData()).add("binary", c.getBinaryData()),
              () -> missing.add("ConfigMap " + name));
    }
    for (String name : new TreeSet<>(nonNull(spec.getSecrets()))) {
      observe(context, Secret.class, ns, name)
          .ifPresentOrElse(
              c -> hash.add("Secret/" + name, c.getData()), () -> missing.add("Secret " + name));
    }
    return new MonitoredConfiguration(missing.isEmpty() ? hash.hex() : null, List.copyOf(missing));
  }

  /** The object from the informer, or read and labelled so the informer sees it from now on. */
  private static <R extends HasMetadata> Optional<R> observe(
      Context<ConfigMonitor> context, Class<R> type, String ns, String name) {
    @SuppressWarnings("unchecked")
    InformerEventSource<R, ConfigMonitor> informer =
        (InformerEventSource<R, ConfigMonitor>)
            context.eventSourceRetriever().getEventSourceFor(type, type.getSimpleName());
    Optional<R> cached = informer.get(new ResourceID(name, ns));
    if (cached.isPresent()) {
      return cached;
    }
    KubernetesClient client = context.getClient();
    R object = client.resources(type).inNamespace(ns).withName(name).get();
    if (object == null) {
      return Optional.empty();
    }
    // A merge patch of one label, as its own update: it never touches the data and no apply by
    // another manager (or by this operator's copies) removes it.
    client
        .resources(type)
        .inNamespace(ns)
        .withName(name)
        .patch(
            new PatchContext.Builder()
                .withPatchType(PatchType.JSON_MERGE)
                .withFieldManager(ConfigSyncOperator.NAME)
                .build(),
            "{\"metadata\":{\"labels\":{\"" + MONITORED_LABEL + "\":\"true\"}}}");
    return Optional.of(object);
  }

  static <T> List<T> nonNull(List<T> list) {
    return list == null ? List.of() : list;
  }
}
