package dev.bosun.config.reconciler;

import static dev.bosun.config.ConfigSyncOperator.SYNC_KIND_LABEL;
import static dev.bosun.config.ConfigSyncOperator.SYNC_NAMESPACE_LABEL;
import static dev.bosun.config.ConfigSyncOperator.SYNC_NAME_LABEL;

import dev.bosun.common.events.EventRecorder;
import dev.bosun.common.meta.Labels;
import dev.bosun.common.status.CachedStatusWrites;
import dev.bosun.common.status.Conditions;
import dev.bosun.common.status.DesiredCondition;
import dev.bosun.config.ConfigSyncOperator;
import dev.bosun.config.model.DestinationResult;
import dev.bosun.config.model.SyncRequest;
import dev.bosun.config.model.SyncStatus;
import dev.bosun.config.sync.CopyWriter;
import dev.bosun.config.sync.SyncPlan;
import dev.bosun.config.sync.SyncPlanner;
import dev.bosun.config.sync.SyncedKind;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Copies a source object to its destination namespaces: observe (source, namespaces and this sync's
 * copies from label-scoped informers), plan ({@link SyncPlanner}), write the copies by server-side
 * apply ({@link CopyWriter}), and record per-destination status. Copies live in other namespaces,
 * so owner references cannot clean them up: a finalizer removes them when the sync goes, even if
 * the operator was down at that moment. Closing it stops its writer threads.
 *
 * @param <P> the sync kind (first: JOSDK reads the primary type from the first type argument)
 * @param <S> the status type of the sync kind
 * @param <R> the copied kind (ConfigMap or Secret)
 */
public abstract class SyncReconciler<P extends CustomResource<?, S>, S, R extends HasMetadata>
    implements Reconciler<P>, Cleaner<P>, AutoCloseable {

  static final String READY = SyncConditions.READY;
  static final String DEGRADED = SyncConditions.DEGRADED;

  /** While an unowned object blocks a copy nothing else tells us it went away: look again. */
  private static final Duration CONFLICT_RECHECK = Duration.ofSeconds(60);

  private final SyncedKind<R> kind;
  private final SyncPlanner<R> planner;
  private final SyncInformers<P, R> informers;
  private final CopyWriter<R> writer;
  private final EventRecorder events;
  private final Clock clock;

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
    this.informers = new SyncInformers<>(kind, p -> request(p).sourceName());
    this.writer = new CopyWriter<>(kind.type());
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
    return informers.prepare(context);
  }

  @Override
  public UpdateControl<P> reconcile(P sync, Context<P> context) {
    SyncRequest request = request(sync);
    List<String> problems = specProblems(sync, request);
    if (!problems.isEmpty()) {
      // Nothing is written and nothing deleted until the spec is fixed; no retry loop.
      return writeStatus(sync, null, List.of(), SyncConditions.invalidSpec(problems), context);
    }
    Observed<R> observed = observe(sync, request, context);
    SyncPlan<R> plan = plan(sync, request, observed);
    List<DestinationResult> results =
        SyncConditions.atVersion(
            writer.carryOut(sync, plan, observed.copies(), context.getClient()),
            observed.sourceVersion());
    return recordResults(sync, request, observed, results, context);
  }

  /** What the informers show of one sync's world. */
  private record Observed<R extends HasMetadata>(
      Optional<R> source,
      Map<String, Namespace> namespaces,
      List<R> copies,
      Map<String, String> copyLabels) {

    String sourceVersion() {
      return source.map(s -> s.getMetadata().getResourceVersion()).orElse(null);
    }
  }

  /** Step 1: what makes the spec one the copies cannot follow (InvalidSpec); empty when valid. */
  private List<String> specProblems(P sync, SyncRequest request) {
    return ConfigSyncValidator.syncProblems(
        kind.syncKind(), sync.getMetadata().getName(), request.selector());
  }

  /** Step 2: the source, the namespaces and this sync's copies, from the informers. */
  private Observed<R> observe(P sync, SyncRequest request, Context<P> context) {
    Map<String, String> copyLabels = copyLabels(sync);
    return new Observed<>(
        informers.source(context, sync.getMetadata().getNamespace(), request.sourceName()),
        informers.namespaces(context),
        informers.copies(context, copyLabels),
        copyLabels);
  }

  /** Step 3: what to write and delete. */
  private SyncPlan<R> plan(P sync, SyncRequest request, Observed<R> observed) {
    return planner.plan(
        sync.getMetadata().getNamespace(),
        request,
        observed.source(),
        observed.namespaces(),
        observed.copies(),
        observed.copyLabels());
  }

  /** Step 4: per-destination status and conditions; a look again while a copy is blocked. */
  private UpdateControl<P> recordResults(
      P sync,
      SyncRequest request,
      Observed<R> observed,
      List<DestinationResult> results,
      Context<P> context) {
    List<DesiredCondition> conditions =
        observed.source().isPresent()
            ? SyncConditions.of(results)
            : sourceNotFound(sync.getMetadata().getNamespace(), request, context);
    UpdateControl<P> control =
        writeStatus(sync, observed.sourceVersion(), results, conditions, context);
    return SyncConditions.recheck(results) ? control.rescheduleAfter(CONFLICT_RECHECK) : control;
  }

  /** A synced destination holds the content of this source version. */
  static List<DestinationResult> atVersion(List<DestinationResult> results, String version) {
    return SyncConditions.atVersion(results, version);
  }

  /** Whether a destination failed in a way that can clear without an event this sync hears of. */
  static boolean recheck(List<DestinationResult> results) {
    return SyncConditions.recheck(results);
  }

  static List<DesiredCondition> conditions(List<DestinationResult> results) {
    return SyncConditions.of(results);
  }

  /** The status, written only when it changed, and into JOSDK's cache at once. */
  private UpdateControl<P> writeStatus(
      P sync,
      String sourceVersion,
      List<DestinationResult> results,
      List<DesiredCondition> conditions,
      Context<P> context) {
    long generation = sync.getMetadata().getGeneration();
    List<Condition> merged = Conditions.merge(conditions(sync), conditions, generation, clock);
    announce(sync, conditions(sync), merged);
    CachedStatusWrites.applyIfChanged(
        sync, status(SyncStatus.of(generation, sourceVersion, results, merged)), context);
    return UpdateControl.noUpdate();
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

  private List<DesiredCondition> sourceNotFound(
      String ns, SyncRequest request, Context<P> context) {
    // The informer only sees marked sources; a direct read says whether one merely lacks the mark.
    R unmarked =
        context
            .getClient()
            .resources(kind.type())
            .inNamespace(ns)
            .withName(request.sourceName())
            .get();
    return SyncConditions.sourceNotFound(
        kind.type().getSimpleName(), ns, request.sourceName(), unmarked != null);
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
    informers.copies(context, copyLabels(sync)).forEach(c -> writer.delete(context.getClient(), c));
    return DeleteControl.defaultDelete();
  }

  /** Stops the writer threads: the operator is closing. */
  @Override
  public void close() {
    writer.close();
  }
}
