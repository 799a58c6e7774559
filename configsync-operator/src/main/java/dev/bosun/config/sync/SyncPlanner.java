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
    Copying<R> copying =
        new Copying<>(syncNamespace, request, source.get(), kind.hash(source.get()), copyLabels);
    List<SyncPlan.Decision<R>> decisions = new ArrayList<>();
    for (String ns : reachable(destinations(syncNamespace, request, namespaces), request)) {
      decisions.add(
          refusal(ns, copying, namespaces.get(ns))
              .<SyncPlan.Decision<R>>map(r -> r)
              .orElseGet(() -> copyTo(ns, copying, copies)));
    }
    return new SyncPlan<>(decisions, deletions(copies, request.targetName(), decisions));
  }

  /** What every copy of one source version carries. */
  private record Copying<R>(
      String syncNamespace,
      SyncRequest request,
      R source,
      String hash,
      Map<String, String> copyLabels) {

    Map<String, String> annotations() {
      return SyncPlanner.annotations(syncNamespace, request.sourceName(), hash);
    }
  }

  /** The annotations that name a copy's source and the hash of the content it holds. */
  static Map<String, String> annotations(String syncNamespace, String sourceName, String hash) {
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(SOURCE_ANNOTATION, syncNamespace + "/" + sourceName);
    annotations.put(SOURCE_HASH_ANNOTATION, hash);
    return annotations;
  }

  /**
   * The destinations worth a decision: an unwatched namespace only when it is named (to say why no
   * copy goes there), never when merely a selector matches it.
   */
  private TreeSet<String> reachable(TreeSet<String> destinations, SyncRequest request) {
    destinations.removeIf(ns -> !watched(ns) && !request.namespaces().contains(ns));
    return destinations;
  }

  /** Why no copy may be written to {@code ns}; empty when one may. */
  private Optional<SyncPlan.Refused<R>> refusal(
      String ns, Copying<R> copying, Namespace namespace) {
    if (!watched(ns)) {
      return Optional.of(
          new SyncPlan.Refused<>(
              ns,
              State.NOT_ALLOWED,
              "namespace "
                  + ns
                  + " is not among the namespaces this operator watches ("
                  + String.join(", ", new TreeSet<>(watchedNamespaces))
                  + "): add it to the operator's watchNamespaces to copy there"));
    }
    if (namespace == null) {
      return Optional.of(
          new SyncPlan.Refused<>(ns, State.ERROR, "namespace " + ns + " does not exist"));
    }
    SyncRequest request = copying.request();
    if (ns.equals(copying.syncNamespace()) && request.targetName().equals(request.sourceName())) {
      return Optional.of(
          new SyncPlan.Refused<>(
              ns, State.CONFLICT, "the source itself lives here; set targetName to copy it"));
    }
    return Consent.refusal(copying.source(), namespace, destinationConsentRequired)
        .map(why -> new SyncPlan.Refused<>(ns, State.NOT_ALLOWED, why));
  }

  /** A write of the copy to {@code ns}, unless the copy there is already up to date. */
  private SyncPlan.Decision<R> copyTo(String ns, Copying<R> copying, Collection<R> copies) {
    String target = copying.request().targetName();
    // Only a copy under the current target name counts: after a rename the new name has no
    // copy yet, so the writer must first make sure nobody else's object holds that name.
    R existing =
        copies.stream()
            .filter(
                c ->
                    c.getMetadata().getNamespace().equals(ns)
                        && c.getMetadata().getName().equals(target))
            .findFirst()
            .orElse(null);
    Map<String, String> annotations = copying.annotations();
    if (existing != null && upToDate(existing, copying.hash(), copying.copyLabels(), annotations)) {
      return new SyncPlan.UpToDate<>(ns);
    }
    R copy = kind.copy(copying.source(), target, ns, copying.copyLabels(), annotations);
    return new SyncPlan.Write<>(ns, copy, existing == null);
  }

  /**
   * Copies where no copy may be any more: the namespace stopped matching, consent was withdrawn, or
   * the target name changed.
   */
  static <R extends HasMetadata> List<R> deletions(
      Collection<R> copies, String targetName, List<SyncPlan.Decision<R>> decisions) {
    List<R> deletions = new ArrayList<>();
    for (R copy : copies) {
      boolean kept =
          copy.getMetadata().getName().equals(targetName)
              && decisions.stream()
                  .anyMatch(
                      d ->
                          d.namespace().equals(copy.getMetadata().getNamespace())
                              && !(d instanceof SyncPlan.Refused<R>));
      if (!kept) {
        deletions.add(copy);
      }
    }
    return deletions;
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
