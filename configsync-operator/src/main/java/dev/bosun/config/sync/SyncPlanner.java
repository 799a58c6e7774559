package dev.bosun.config.sync;

import static dev.bosun.config.ConfigSyncOperator.SOURCE_ANNOTATION;
import static dev.bosun.config.ConfigSyncOperator.SOURCE_HASH_ANNOTATION;

import dev.bosun.common.meta.LabelSelectors;
import dev.bosun.config.model.DestinationResult.State;
import dev.bosun.config.model.SyncRequest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides, from what the caches show, what a sync must write and delete. Pure: the same inputs give
 * the same plan; the API calls are the reconciler's.
 */
public final class SyncPlanner<R extends HasMetadata> {

  private final SyncedKind<R> kind;
  private final boolean destinationConsentRequired;
  private final Set<String> watchedNamespaces;

  /**
   * A planner for an operator confined to {@code watchedNamespaces} (empty: every namespace): it
   * holds no rights elsewhere, so it never plans a copy there.
   */
  public SyncPlanner(
      SyncedKind<R> kind, boolean destinationConsentRequired, Set<String> watchedNamespaces) {
    this.kind = kind;
    this.destinationConsentRequired = destinationConsentRequired;
    this.watchedNamespaces = Set.copyOf(watchedNamespaces);
  }

  private boolean watched(String namespace) {
    return watchedNamespaces.isEmpty() || watchedNamespaces.contains(namespace);
  }

  /**
   * The plan.
   *
   * @param syncNamespace where the sync and its source live
   * @param request what the sync asks for
   * @param source the source, if it exists and takes part in syncing
   * @param namespaces every namespace of the cluster
   * @param copies this sync's existing copies (under the current or an earlier target name)
   * @param copyLabels the labels every copy of this sync carries
   */
  public SyncPlan<R> plan(
      String syncNamespace,
      SyncRequest request,
      Optional<R> source,
      Map<String, Namespace> namespaces,
      Collection<R> copies,
      Map<String, String> copyLabels) {
    if (source.isEmpty()) {
      // No source (never created, or deleted): no copy may outlive it.
      return new SyncPlan<>(List.of(), List.copyOf(copies));
    }
    R src = source.get();
    String hash = kind.hash(src);
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(SOURCE_ANNOTATION, syncNamespace + "/" + request.sourceName());
    annotations.put(SOURCE_HASH_ANNOTATION, hash);

    List<SyncPlan.Decision<R>> decisions = new ArrayList<>();
    TreeSet<String> destinations = destinations(syncNamespace, request, namespaces);
    destinations.removeIf(ns -> !watched(ns) && !request.namespaces().contains(ns));
    for (String ns : destinations) {
      if (!watched(ns)) {
        decisions.add(
            new SyncPlan.Refused<>(
                ns,
                State.NOT_ALLOWED,
                "namespace "
                    + ns
                    + " is not among the namespaces this operator watches ("
                    + String.join(", ", new TreeSet<>(watchedNamespaces))
                    + "): add it to the operator's watchNamespaces to copy there"));
        continue;
      }
      Namespace namespace = namespaces.get(ns);
      if (namespace == null) {
        decisions.add(
            new SyncPlan.Refused<>(ns, State.ERROR, "namespace " + ns + " does not exist"));
        continue;
      }
      if (ns.equals(syncNamespace) && request.targetName().equals(request.sourceName())) {
        decisions.add(
            new SyncPlan.Refused<>(
                ns, State.CONFLICT, "the source itself lives here; set targetName to copy it"));
        continue;
      }
      Optional<String> refusal = Consent.refusal(src, namespace, destinationConsentRequired);
      if (refusal.isPresent()) {
        decisions.add(new SyncPlan.Refused<>(ns, State.NOT_ALLOWED, refusal.get()));
        continue;
      }
      // Only a copy under the current target name counts: after a rename the new name has no
      // copy yet, so the writer must first make sure nobody else's object holds that name.
      R existing =
          copies.stream()
              .filter(
                  c ->
                      c.getMetadata().getNamespace().equals(ns)
                          && c.getMetadata().getName().equals(request.targetName()))
              .findFirst()
              .orElse(null);
      if (existing != null && upToDate(existing, hash, copyLabels, annotations)) {
        decisions.add(new SyncPlan.UpToDate<>(ns));
      } else {
        R copy = kind.copy(src, request.targetName(), ns, copyLabels, annotations);
        decisions.add(new SyncPlan.Write<>(ns, copy, existing == null));
      }
    }
    // Copies where no copy may be any more: the namespace stopped matching, consent was
    // withdrawn, or the target name changed.
    List<R> deletions = new ArrayList<>();
    for (R copy : copies) {
      boolean kept =
          copy.getMetadata().getName().equals(request.targetName())
              && decisions.stream()
                  .anyMatch(
                      d ->
                          d.namespace().equals(copy.getMetadata().getNamespace())
                              && !(d instanceof SyncPlan.Refused<R>));
      if (!kept) {
        deletions.add(copy);
      }
    }
    return new SyncPlan<>(decisions, deletions);
  }

  /** Named namespaces plus the existing, active ones the selector matches, in name order. */
  static TreeSet<String> destinations(
      String syncNamespace, SyncRequest request, Map<String, Namespace> namespaces) {
    TreeSet<String> result = new TreeSet<>(request.namespaces());
    if (request.selector() != null) {
      for (Namespace ns : namespaces.values()) {
        String name = ns.getMetadata().getName();
        boolean terminating =
            ns.getStatus() != null && "Terminating".equals(ns.getStatus().getPhase());
        if (!terminating
            && !name.equals(syncNamespace)
            && LabelSelectors.matches(request.selector(), ns.getMetadata().getLabels())) {
          result.add(name);
        }
      }
    }
    return result;
  }

  private boolean upToDate(
      R existing, String hash, Map<String, String> labels, Map<String, String> annotations) {
    Map<String, String> actualLabels = existing.getMetadata().getLabels();
    Map<String, String> actualAnnotations = existing.getMetadata().getAnnotations();
    return hash.equals(kind.hash(existing))
        && actualLabels != null
        && actualLabels.entrySet().containsAll(labels.entrySet())
        && actualAnnotations != null
        && annotations.entrySet().stream()
            .allMatch(e -> Objects.equals(actualAnnotations.get(e.getKey()), e.getValue()));
  }
}
