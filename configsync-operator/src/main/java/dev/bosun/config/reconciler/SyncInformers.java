package dev.bosun.config.reconciler;

import static dev.bosun.config.ConfigSyncOperator.SYNC_KIND_LABEL;
import static dev.bosun.config.ConfigSyncOperator.SYNC_NAMESPACE_LABEL;
import static dev.bosun.config.ConfigSyncOperator.SYNC_NAME_LABEL;

import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.sync.SyncedKind;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The informers a sync reconciler reads from: marked sources, this kind's copies and every
 * namespace, each mapping its events to the syncs they concern.
 */
final class SyncInformers<P extends HasMetadata, R extends HasMetadata> {

  private static final String BY_SOURCE = "by-source";
  private static final String SOURCES = "sources";
  private static final String COPIES = "copies";
  private static final String NAMESPACES = "namespaces";

  private final SyncedKind<R> kind;
  private final Function<P, String> sourceName;

  SyncInformers(SyncedKind<R> kind, Function<P, String> sourceName) {
    this.kind = kind;
    this.sourceName = sourceName;
  }

  List<EventSource<?, P>> prepare(EventSourceContext<P> context) {
    context
        .getPrimaryCache()
        .addIndexer(
            BY_SOURCE, p -> List.of(p.getMetadata().getNamespace() + "/" + sourceName.apply(p)));
    return List.of(
        new InformerEventSource<>(sources(context), context),
        new InformerEventSource<>(copies(context), context),
        new InformerEventSource<>(namespaces(context), context));
  }

  /** Only sources marked for syncing are watched: never every Secret of the cluster. */
  private InformerEventSourceConfiguration<R> sources(EventSourceContext<P> context) {
    return InformerEventSourceConfiguration.from(kind.type(), context.getPrimaryResourceClass())
        .withName(SOURCES)
        .withLabelSelector(ConfigSyncOperator.SOURCE_LABEL + "=true")
        .withSecondaryToPrimaryMapper(
            source ->
                context
                    .getPrimaryCache()
                    .byIndex(
                        BY_SOURCE,
                        source.getMetadata().getNamespace() + "/" + source.getMetadata().getName())
                    .stream()
                    .map(ResourceID::fromResource)
                    .collect(Collectors.toSet()))
        .build();
  }

  private InformerEventSourceConfiguration<R> copies(EventSourceContext<P> context) {
    return InformerEventSourceConfiguration.from(kind.type(), context.getPrimaryResourceClass())
        .withName(COPIES)
        .withLabelSelector(
            ConfigSyncOperator.MANAGED_SELECTOR + "," + SYNC_KIND_LABEL + "=" + kind.syncKind())
        .withSecondaryToPrimaryMapper(
            copy ->
                Set.of(
                    new ResourceID(
                        copy.getMetadata().getLabels().get(SYNC_NAME_LABEL),
                        copy.getMetadata().getLabels().get(SYNC_NAMESPACE_LABEL))))
        .build();
  }

  /**
   * A namespace appearing, changing labels or consent, or going away can change any sync.
   * Namespaces are cluster-scoped: one informer over all of them, whatever namespaces the
   * controller watches (inheriting those would open one identical cluster-wide informer per watched
   * namespace).
   */
  private InformerEventSourceConfiguration<Namespace> namespaces(EventSourceContext<P> context) {
    return InformerEventSourceConfiguration.from(Namespace.class, context.getPrimaryResourceClass())
        .withName(NAMESPACES)
        .withWatchAllNamespaces()
        .withSecondaryToPrimaryMapper(
            ns ->
                context
                    .getPrimaryCache()
                    .list()
                    .map(ResourceID::fromResource)
                    .collect(Collectors.toSet()))
        .build();
  }

  /** The marked source a sync names, if the informer has it. */
  Optional<R> source(Context<P> context, String ns, String name) {
    return informer(context, kind.type(), SOURCES).get(new ResourceID(name, ns));
  }

  /** Every namespace of the cluster, by name. */
  Map<String, Namespace> namespaces(Context<P> context) {
    return informer(context, Namespace.class, NAMESPACES)
        .list(n -> true)
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
  }

  /** The copies that carry this sync's name and namespace labels. */
  List<R> copies(Context<P> context, Map<String, String> copyLabels) {
    String name = copyLabels.get(SYNC_NAME_LABEL);
    String namespace = copyLabels.get(SYNC_NAMESPACE_LABEL);
    return informer(context, kind.type(), COPIES)
        .list(
            c ->
                c.getMetadata().getLabels() != null
                    && name.equals(c.getMetadata().getLabels().get(SYNC_NAME_LABEL))
                    && namespace.equals(c.getMetadata().getLabels().get(SYNC_NAMESPACE_LABEL)))
        .toList();
  }

  @SuppressWarnings("unchecked")
  private static <T extends HasMetadata, P extends HasMetadata> InformerEventSource<T, P> informer(
      Context<P> context, Class<T> type, String name) {
    return (InformerEventSource<T, P>) context.eventSourceRetriever().getEventSourceFor(type, name);
  }
}
