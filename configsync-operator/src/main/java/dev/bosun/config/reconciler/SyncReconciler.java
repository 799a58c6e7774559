package dev.bosun.config.reconciler;

import static dev.bosun.common.status.DesiredCondition.isFalse;
import static dev.bosun.common.status.DesiredCondition.isTrue;
import static dev.bosun.config.ConfigSyncOperator.SYNC_KIND_LABEL;
import static dev.bosun.config.ConfigSyncOperator.SYNC_NAMESPACE_LABEL;
import static dev.bosun.config.ConfigSyncOperator.SYNC_NAME_LABEL;

import dev.bosun.common.admission.AdmissionReviews;
import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.common.status.StatusRecorder;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.DestinationResult.State;
import dev.bosun.config.model.SyncRequest;
import dev.bosun.config.model.SyncStatus;
import dev.bosun.config.sync.SyncPlan;
import dev.bosun.config.sync.SyncPlanner;
import dev.bosun.config.sync.SyncedKind;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a source object to its destination namespaces: observe (source, namespaces and this sync's
 * copies from label-scoped informers), plan ({@link SyncPlanner}), write the copies by server-side
 * apply, and record per-destination status. Copies live in other namespaces, so owner references
 * cannot clean them up: a finalizer removes them when the sync goes, even if the operator was down
 * at that moment.
 *
 * @param <P> the sync kind (first: JOSDK reads the primary type from the first type argument)
 * @param <S> the status type of the sync kind
 * @param <R> the copied kind (ConfigMap or Secret)
 */
public abstract class SyncReconciler<P extends CustomResource<?, S>, S, R extends HasMetadata>
    implements Reconciler<P>, Cleaner<P> {

  static final String READY = "Ready";
  static final String DEGRADED = "Degraded";
  private static final String BY_SOURCE = "by-source";
  private static final String SOURCES = "sources";
  private static final String COPIES = "copies";
  private static final String NAMESPACES = "namespaces";

  /** While an unowned object blocks a copy nothing else tells us it went away: look again. */
  private static final Duration CONFLICT_RECHECK = Duration.ofSeconds(60);

  private static final int PARALLEL_WRITES = 16;

  private static final Logger LOG = LoggerFactory.getLogger(SyncReconciler.class);

  private final SyncedKind<R> kind;
  private final SyncPlanner<R> planner;
  private final EventRecorder events;
  private final Clock clock;
  private final ExecutorService writers =
      Executors.newFixedThreadPool(
          PARALLEL_WRITES,
          r -> {
            Thread t = new Thread(r, "copy-writer");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param watchedNamespaces the namespaces the operator is confined to (empty: every namespace):
   *     the only destinations it copies into
   */
  protected SyncReconciler(
      SyncedKind<R> kind,
      boolean destinationConsentRequired,
      Set<String> watchedNamespaces,
      EventRecorder events,
      Clock clock) {
    this.kind = kind;
    this.planner = new SyncPlanner<>(kind, destinationConsentRequired, watchedNamespaces);
    this.events = events;
    this.clock = clock;
  }

  /** The request of a sync of this kind. */
  protected abstract SyncRequest request(P sync);

  /** The status of a sync of this kind. */
  protected abstract S status(SyncStatus status);

  /** The stored conditions of a sync of this kind. */
  protected abstract List<Condition> conditions(P sync);

  @Override
  public List<EventSource<?, P>> prepareEventSources(EventSourceContext<P> context) {
    context
        .getPrimaryCache()
        .addIndexer(
            BY_SOURCE,
            p -> List.of(p.getMetadata().getNamespace() + "/" + request(p).sourceName()));
    return List.of(
        new InformerEventSource<>(sourcesInformer(context), context),
        new InformerEventSource<>(copiesInformer(context), context),
        new InformerEventSource<>(namespacesInformer(context), context));
  }

  /** Only sources marked for syncing are watched: never every Secret of the cluster. */
  private InformerEventSourceConfiguration<R> sourcesInformer(EventSourceContext<P> context) {
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

  private InformerEventSourceConfiguration<R> copiesInformer(EventSourceContext<P> context) {
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
  private InformerEventSourceConfiguration<Namespace> namespacesInformer(
      EventSourceContext<P> context) {
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

  @SuppressWarnings("unchecked")
  private <T extends HasMetadata> InformerEventSource<T, P> source(
      Context<P> context, Class<T> type, String name) {
    return (InformerEventSource<T, P>) context.eventSourceRetriever().getEventSourceFor(type, name);
  }

  @Override
  public UpdateControl<P> reconcile(P sync, Context<P> context) {
    Round r = new Round(sync, context);
    Optional<UpdateControl<P>> invalid = checkSpec(r);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    observe(r);
    writeCopies(r);
    return recordResults(r);
  }

  /** What one reconcile of a sync has learnt so far, handed from step to step. */
  private final class Round {
    final P sync;
    final Context<P> context;
    final String ns;
    final SyncRequest request;
    Optional<R> source;
    Map<String, Namespace> namespaces;
    List<R> copies;
    List<DestinationResult> results;

    Round(P sync, Context<P> context) {
      this.sync = sync;
      this.context = context;
      this.ns = sync.getMetadata().getNamespace();
      this.request = request(sync);
    }

    String sourceVersion() {
      return source.map(s -> s.getMetadata().getResourceVersion()).orElse(null);
    }
  }

  /** Step 1: a spec the copies cannot follow is InvalidSpec. */
  private Optional<UpdateControl<P>> checkSpec(Round r) {
    List<String> problems =
        ConfigSyncValidator.syncProblems(
            kind.syncKind(), r.sync.getMetadata().getName(), r.request.selector());
    if (problems.isEmpty()) {
      return Optional.empty();
    }
    // Nothing is written and nothing deleted until the spec is fixed; no retry loop.
    String message =
        HumanMessages.bounded(
            AdmissionReviews.PREFIX + String.join("; ", problems), 2 * HumanMessages.MAX_LENGTH);
    return Optional.of(
        writeStatus(
            r.sync,
            null,
            List.of(),
            List.of(
                isFalse(READY, "InvalidSpec", message), isTrue(DEGRADED, "InvalidSpec", message))));
  }

  /** Step 2: the source, the namespaces and this sync's copies, from the informers. */
  private void observe(Round r) {
    r.source =
        source(r.context, kind.type(), SOURCES).get(new ResourceID(r.request.sourceName(), r.ns));
    r.namespaces =
        source(r.context, Namespace.class, NAMESPACES)
            .list(n -> true)
            .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
    r.copies = copiesOf(r.sync, r.context);
  }

  /** Step 3: the plan carried out: copies written, stale copies deleted. */
  private void writeCopies(Round r) {
    SyncPlan<R> plan =
        planner.plan(r.ns, r.request, r.source, r.namespaces, r.copies, copyLabels(r.sync));
    List<DestinationResult> results = execute(plan, r.context.getClient());
    for (R stale : plan.deletions()) {
      delete(r.context.getClient(), stale);
    }
    r.results = atVersion(results, r.sourceVersion());
  }

  /** A synced destination holds the content of this source version. */
  static List<DestinationResult> atVersion(List<DestinationResult> results, String version) {
    return results.stream()
        .map(
            r ->
                r.state() == State.SYNCED
                    ? new DestinationResult(r.namespace(), r.state(), version, r.message())
                    : r)
        .toList();
  }

  /** Step 4: per-destination status and conditions; a look again while a copy is blocked. */
  private UpdateControl<P> recordResults(Round r) {
    List<DesiredCondition> conditions;
    if (r.source.isPresent()) {
      conditions = conditions(r.results);
    } else {
      String why = sourceMissing(r.request, r.ns, r.context);
      conditions =
          List.of(isFalse(READY, "SourceNotFound", why), isTrue(DEGRADED, "SourceNotFound", why));
    }
    UpdateControl<P> control = writeStatus(r.sync, r.sourceVersion(), r.results, conditions);
    return recheck(r.results) ? control.rescheduleAfter(CONFLICT_RECHECK) : control;
  }

  /**
   * Whether a destination failed in a way that can clear without an event this sync hears of (a
   * conflicting object removed, a write error); NotAllowed waits for a namespace change, which the
   * namespace informer announces.
   */
  static boolean recheck(List<DestinationResult> results) {
    return results.stream()
        .anyMatch(r -> r.state() != State.SYNCED && r.state() != State.NOT_ALLOWED);
  }

  private UpdateControl<P> writeStatus(
      P sync,
      String sourceVersion,
      List<DestinationResult> results,
      List<DesiredCondition> conditions) {
    long generation = sync.getMetadata().getGeneration();
    List<Condition> merged = Conditions.merge(conditions(sync), conditions, generation, clock);
    announce(sync, conditions(sync), merged);
    return StatusRecorder.patchIfChanged(
        sync, status(SyncStatus.of(generation, sourceVersion, results, merged)));
  }

  private List<R> copiesOf(P sync, Context<P> context) {
    Map<String, String> labels = copyLabels(sync);
    return source(context, kind.type(), COPIES)
        .list(
            c ->
                c.getMetadata().getLabels() != null
                    && labels
                        .get(SYNC_NAME_LABEL)
                        .equals(c.getMetadata().getLabels().get(SYNC_NAME_LABEL))
                    && labels
                        .get(SYNC_NAMESPACE_LABEL)
                        .equals(c.getMetadata().getLabels().get(SYNC_NAMESPACE_LABEL)))
        .toList();
  }

  /** The labels that mark a copy as this sync's. */
  Map<String, String> copyLabels(P sync) {
    Map<String, String> labels =
        new LinkedHashMap<>(Labels.of(sync, "configsync", "copy", ConfigSyncOperator.NAME));
    labels.put(SYNC_NAME_LABEL, sync.getMetadata().getName());
    labels.put(SYNC_NAMESPACE_LABEL, sync.getMetadata().getNamespace());
    labels.put(SYNC_KIND_LABEL, kind.syncKind());
    return labels;
  }

  /** Carries out the plan; copies are written in parallel (one source often feeds hundreds). */
  private List<DestinationResult> execute(SyncPlan<R> plan, KubernetesClient client) {
    List<CompletableFuture<DestinationResult>> results = new ArrayList<>();
    for (SyncPlan.Decision<R> decision : plan.decisions()) {
      String ns = decision.namespace();
      if (decision instanceof SyncPlan.Refused<R> refused) {
        results.add(
            CompletableFuture.completedFuture(
                new DestinationResult(ns, refused.state(), null, refused.message())));
      } else if (decision instanceof SyncPlan.UpToDate<R>) {
        results.add(
            CompletableFuture.completedFuture(
                new DestinationResult(ns, State.SYNCED, null, "in sync")));
      } else if (decision instanceof SyncPlan.Write<R> write) {
        results.add(CompletableFuture.supplyAsync(() -> write(client, write), writers));
      }
    }
    return results.stream().map(CompletableFuture::join).toList();
  }

  private DestinationResult write(KubernetesClient client, SyncPlan.Write<R> write) {
    String ns = write.namespace();
    String name = write.copy().getMetadata().getName();
    try {
      if (write.create()) {
        R existing = client.resources(kind.type()).inNamespace(ns).withName(name).get();
        if (existing != null) {
          return new DestinationResult(
              ns,
              State.CONFLICT,
              null,
              kind.type().getSimpleName()
                  + " "
                  + ns
                  + "/"
                  + name
                  + " exists and was not created by this sync: Bosun never overwrites it");
        }
      }
      client
          .resources(kind.type())
          .inNamespace(ns)
          .resource(write.copy())
          .fieldManager(ConfigSyncOperator.NAME)
          .forceConflicts()
          .serverSideApply();
      LOG.info("{} {}/{} written", write.create() ? "created copy" : "updated copy", ns, name);
      return new DestinationResult(ns, State.SYNCED, null, "in sync");
    } catch (KubernetesClientException e) {
      // The status message of the API error, never the object (a Secret's data must not leak).
      String why = HumanMessages.describe(e);
      LOG.warn("copy to {}/{} failed: {}", ns, name, why);
      return new DestinationResult(ns, State.ERROR, null, "write failed: " + why);
    }
  }

  private void delete(KubernetesClient client, R copy) {
    LOG.info(
        "removing copy {}/{}", copy.getMetadata().getNamespace(), copy.getMetadata().getName());
    client
        .resources(kind.type())
        .inNamespace(copy.getMetadata().getNamespace())
        .withName(copy.getMetadata().getName())
        .delete();
  }

  private String sourceMissing(SyncRequest request, String ns, Context<P> context) {
    // The informer only sees marked sources; a direct read says whether one merely lacks the mark.
    R unmarked =
        context
            .getClient()
            .resources(kind.type())
            .inNamespace(ns)
            .withName(request.sourceName())
            .get();
    if (unmarked != null) {
      return kind.type().getSimpleName()
          + " "
          + ns
          + "/"
          + request.sourceName()
          + " is not marked for syncing: its owner must label it "
          + ConfigSyncOperator.SOURCE_LABEL
          + "=true and list destinations in annotation "
          + ConfigSyncOperator.ALLOW_SYNC_TO;
    }
    return kind.type().getSimpleName() + " " + ns + "/" + request.sourceName() + " does not exist";
  }

  static List<DesiredCondition> conditions(List<DestinationResult> results) {
    long synced = results.stream().filter(r -> r.state() == State.SYNCED).count();
    Optional<DestinationResult> problem =
        results.stream().filter(r -> r.state() != State.SYNCED).findFirst();
    if (results.isEmpty()) {
      return List.of(
          isFalse(READY, "NoDestinations", "no destination namespace is named or matches"),
          isFalse(DEGRADED, "AsExpected", "no problem observed"));
    }
    if (problem.isEmpty()) {
      String message = "copied to all " + synced + " destination namespaces";
      return List.of(isTrue(READY, "Synced", message), isFalse(DEGRADED, "AsExpected", message));
    }
    String reason =
        switch (problem.get().state()) {
          case CONFLICT -> "Conflict";
          case NOT_ALLOWED -> "NotAllowed";
          default -> "SyncError";
        };
    String message =
        synced
            + " of "
            + results.size()
            + " destinations synced; "
            + problem.get().namespace()
            + ": "
            + problem.get().message();
    return List.of(isFalse(READY, reason, message), isTrue(DEGRADED, reason, message));
  }

  private void announce(P sync, List<Condition> before, List<Condition> after) {
    Condition was = Conditions.find(before, READY).orElse(null);
    Condition now = Conditions.find(after, READY).orElseThrow();
    if (was != null
        && was.getStatus().equals(now.getStatus())
        && was.getReason().equals(now.getReason())) {
      return;
    }
    if ("True".equals(now.getStatus())) {
      events.normal(sync, now.getReason(), now.getMessage());
    } else {
      events.warning(sync, now.getReason(), now.getMessage());
    }
  }

  @Override
  public DeleteControl cleanup(P sync, Context<P> context) {
    // Copies of a deleted sync go with it, also when it was deleted while the operator was down.
    copiesOf(sync, context).forEach(copy -> delete(context.getClient(), copy));
    return DeleteControl.defaultDelete();
  }
}
