package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.config.model.DestinationResult.State;
import dev.bosun.config.model.SyncRequest;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SyncPlannerTest {

  private static final String SYNC_NS = "src";
  private static final String SOURCE = "app";
  private static final String SOURCE_ANNOTATION = "config.bosun.dev/source";
  private static final String HASH_ANNOTATION = "config.bosun.dev/source-hash";
  private static final Map<String, String> COPY_LABELS =
      Map.of(
          "app.kubernetes.io/managed-by", "bosun-configsync-operator",
          "config.bosun.dev/sync-name", "app-sync",
          "config.bosun.dev/sync-namespace", SYNC_NS,
          "config.bosun.dev/sync-kind", "ConfigMapSync");
  private static final LabelSelector PROD =
      new LabelSelectorBuilder().addToMatchLabels("env", "prod").build();

  private final ConfigMapKind kind = new ConfigMapKind();
  private final SyncPlanner<ConfigMap> planner = new SyncPlanner<>(kind, true, Set.of());
  private final SyncPlanner<ConfigMap> lenient = new SyncPlanner<>(kind, false, Set.of());
  private final SyncPlanner<ConfigMap> confined = new SyncPlanner<>(kind, true, Set.of("a", "b"));

  // --- fixtures ---

  private static ConfigMap source(String allowSyncTo) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(SOURCE)
        .withNamespace(SYNC_NS)
        .withResourceVersion("12")
        .addToLabels("config.bosun.dev/sync-source", "true")
        .addToAnnotations("config.bosun.dev/allow-sync-to", allowSyncTo)
        .endMetadata()
        .addToData("k", "v1")
        .build();
  }

  private static ConfigMap source() {
    return source("*");
  }

  /** A namespace accepting copies from the sync's namespace. */
  private static Namespace ns(String name, String... labels) {
    return nsAccepting(name, SYNC_NS, labels);
  }

  /** A namespace with accept-sync-from set to {@code acceptSyncFrom} (null: absent). */
  private static Namespace nsAccepting(String name, String acceptSyncFrom, String... labels) {
    NamespaceBuilder b = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata();
    if (acceptSyncFrom != null) {
      b.editMetadata()
          .addToAnnotations("config.bosun.dev/accept-sync-from", acceptSyncFrom)
          .endMetadata();
    }
    for (int i = 0; i < labels.length; i += 2) {
      b.editMetadata().addToLabels(labels[i], labels[i + 1]).endMetadata();
    }
    return b.build();
  }

  private static Namespace terminating(Namespace ns) {
    return new NamespaceBuilder(ns).withNewStatus().withPhase("Terminating").endStatus().build();
  }

  private static Map<String, Namespace> cluster(Namespace... namespaces) {
    return Arrays.stream(namespaces)
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
  }

  private static SyncRequest explicit(String... namespaces) {
    return new SyncRequest(SOURCE, null, Set.of(namespaces), null);
  }

  private static Map<String, String> expectedAnnotations(ConfigMap source) {
    return Map.of(
        SOURCE_ANNOTATION,
        SYNC_NS + "/" + SOURCE,
        HASH_ANNOTATION,
        new ConfigMapKind().hash(source));
  }

  /** The copy this sync would have written to {@code namespace} for {@code source}. */
  private ConfigMap copyOf(ConfigMap source, String name, String namespace) {
    return kind.copy(
        source,
        name,
        namespace,
        new HashMap<>(COPY_LABELS),
        new HashMap<>(expectedAnnotations(source)));
  }

  private static List<ConfigMap> copies(ConfigMap... copies) {
    return List.of(copies);
  }

  private SyncPlan<ConfigMap> plan(
      SyncRequest request, Map<String, Namespace> namespaces, List<ConfigMap> copies) {
    return planner.plan(SYNC_NS, request, Optional.of(source()), namespaces, copies, COPY_LABELS);
  }

  private static List<String> namespaces(SyncPlan<ConfigMap> plan) {
    return plan.decisions().stream().map(SyncPlan.Decision::namespace).toList();
  }

  private static SyncPlan.Decision<ConfigMap> decision(SyncPlan<ConfigMap> plan, String ns) {
    return plan.decisions().stream()
        .filter(d -> d.namespace().equals(ns))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no decision for " + ns + ": " + plan.decisions()));
  }

  // --- source ---

  @Test
  void withoutASourceNothingIsDecidedAndEveryCopyIsDeleted() {
    ConfigMap inA = copyOf(source(), SOURCE, "a");
    ConfigMap inB = copyOf(source(), SOURCE, "b");

    SyncPlan<ConfigMap> plan =
        planner.plan(
            SYNC_NS,
            explicit("a", "b"),
            Optional.empty(),
            cluster(ns("a"), ns("b")),
            copies(inA, inB),
            COPY_LABELS);

    assertThat(plan.decisions()).isEmpty();
    assertThat(plan.deletions()).containsExactlyInAnyOrder(inA, inB);
  }

  @Test
  void withoutASourceAndWithoutCopiesThePlanIsEmpty() {
    SyncPlan<ConfigMap> plan =
        planner.plan(
            SYNC_NS, explicit("a"), Optional.empty(), cluster(ns("a")), List.of(), COPY_LABELS);

    assertThat(plan.decisions()).isEmpty();
    assertThat(plan.deletions()).isEmpty();
  }

  // --- destinations ---

  @Test
  void destinationsAreTheExplicitListPlusSelectorMatches() {
    SyncRequest request = new SyncRequest(SOURCE, null, Set.of("named"), PROD);
    Map<String, Namespace> cluster =
        cluster(
            ns("named"),
            ns("prod-1", "env", "prod"),
            ns("prod-2", "env", "prod", "team", "x"),
            ns("dev-1", "env", "dev"),
            ns("unlabelled"));

    SyncPlan<ConfigMap> plan = plan(request, cluster, List.of());

    assertThat(namespaces(plan)).containsExactly("named", "prod-1", "prod-2");
  }

  @Test
  void anOperatorConfinedToSomeNamespacesCopiesIntoThoseOnly() {
    SyncRequest request = new SyncRequest(SOURCE, null, Set.of("a", "elsewhere"), PROD);
    Map<String, Namespace> cluster =
        cluster(ns("a"), ns("b", "env", "prod"), ns("elsewhere"), ns("prod-9", "env", "prod"));

    SyncPlan<ConfigMap> plan =
        confined.plan(SYNC_NS, request, Optional.of(source()), cluster, List.of(), COPY_LABELS);

    // The selector picks among the watched namespaces only; a named one outside is refused,
    // saying why, rather than written (the operator holds no rights there).
    assertThat(namespaces(plan)).containsExactly("a", "b", "elsewhere");
    assertThat(decision(plan, "a")).isInstanceOf(SyncPlan.Write.class);
    assertThat(decision(plan, "b")).isInstanceOf(SyncPlan.Write.class);
    assertThat(decision(plan, "elsewhere"))
        .isInstanceOfSatisfying(
            SyncPlan.Refused.class,
            r -> {
              assertThat(r.state()).isEqualTo(State.NOT_ALLOWED);
              assertThat(r.message()).contains("watchNamespaces").contains("a, b");
            });
  }

  @Test
  void anExplicitNameTheSelectorAlsoMatchesGetsOneDecision() {
    SyncRequest request = new SyncRequest(SOURCE, null, Set.of("prod-1"), PROD);

    SyncPlan<ConfigMap> plan = plan(request, cluster(ns("prod-1", "env", "prod")), List.of());

    assertThat(namespaces(plan)).containsExactly("prod-1");
  }

  @Test
  void theSelectorNeverSelectsTheSyncsOwnNamespace() {
    SyncRequest request = new SyncRequest(SOURCE, "copy", Set.of(), PROD);

    SyncPlan<ConfigMap> plan =
        plan(request, cluster(ns(SYNC_NS, "env", "prod"), ns("prod-1", "env", "prod")), List.of());

    assertThat(namespaces(plan)).containsExactly("prod-1");
  }

  @Test
  void theSelectorSkipsTerminatingNamespaces() {
    SyncRequest request = new SyncRequest(SOURCE, null, Set.of(), PROD);
    Namespace active =
        new NamespaceBuilder(ns("prod-1", "env", "prod"))
            .withNewStatus()
            .withPhase("Active")
            .endStatus()
            .build();

    SyncPlan<ConfigMap> plan =
        plan(request, cluster(active, terminating(ns("prod-2", "env", "prod"))), List.of());

    assertThat(namespaces(plan)).containsExactly("prod-1");
  }

  @Test
  void anEmptySelectorMatchesEveryOtherNamespace() {
    SyncRequest request = new SyncRequest(SOURCE, null, Set.of(), new LabelSelector());

    SyncPlan<ConfigMap> plan =
        plan(request, cluster(ns(SYNC_NS), ns("a"), ns("b", "x", "y")), List.of());

    assertThat(namespaces(plan)).containsExactly("a", "b");
  }

  @Test
  void withoutSelectorOnlyTheExplicitListCounts() {
    SyncPlan<ConfigMap> plan =
        plan(explicit("a"), cluster(ns("a", "env", "prod"), ns("b", "env", "prod")), List.of());

    assertThat(namespaces(plan)).containsExactly("a");
  }

  @Test
  void anExplicitNamespaceThatDoesNotExistIsAnError() {
    SyncPlan<ConfigMap> plan = plan(explicit("a", "ghost"), cluster(ns("a")), List.of());

    assertThat(decision(plan, "ghost"))
        .isInstanceOfSatisfying(
            SyncPlan.Refused.class,
            r -> {
              assertThat(r.state()).isEqualTo(State.ERROR);
              assertThat(r.message()).contains("ghost").contains("does not exist");
            });
    assertThat(decision(plan, "a")).isInstanceOf(SyncPlan.Write.class);
  }

  @Test
  void decisionsComeInNamespaceNameOrder() {
    SyncRequest request =
        new SyncRequest(SOURCE, null, Set.of("zeta", "alpha", "ghost", "mid"), PROD);
    Map<String, Namespace> cluster =
        cluster(
            ns("zeta"),
            ns("alpha"),
            nsAccepting("mid", null),
            ns("beta", "env", "prod"),
            ns("omega", "env", "prod"));

    SyncPlan<ConfigMap> plan = plan(request, cluster, List.of());

    assertThat(namespaces(plan)).containsExactly("alpha", "beta", "ghost", "mid", "omega", "zeta");
  }

  // --- conflicts and consent ---

  @Test
  void theSourcesOwnNamespaceUnderTheSameNameIsAConflict() {
    SyncPlan<ConfigMap> plan =
        plan(explicit(SYNC_NS, "a"), cluster(ns(SYNC_NS), ns("a")), List.of());

    assertThat(decision(plan, SYNC_NS))
        .isInstanceOfSatisfying(
            SyncPlan.Refused.class,
            r -> {
              assertThat(r.state()).isEqualTo(State.CONFLICT);
              assertThat(r.message()).contains("targetName");
            });
    assertThat(decision(plan, "a")).isInstanceOf(SyncPlan.Write.class);
  }

  @Test
  void theSourcesOwnNamespaceUnderAnotherNameGetsACopy() {
    SyncRequest request = new SyncRequest(SOURCE, "app-copy", Set.of(SYNC_NS), null);

    SyncPlan<ConfigMap> plan = plan(request, cluster(ns(SYNC_NS)), List.of());

    assertThat(decision(plan, SYNC_NS))
        .isInstanceOfSatisfying(
            SyncPlan.Write.class,
            w -> {
              assertThat(w.create()).isTrue();
              assertThat(((ConfigMap) w.copy()).getMetadata().getName()).isEqualTo("app-copy");
              assertThat(((ConfigMap) w.copy()).getMetadata().getNamespace()).isEqualTo(SYNC_NS);
            });
  }

  @Test
  void withoutSourceConsentTheDestinationIsNotAllowed() {
    SyncPlan<ConfigMap> plan =
        planner.plan(
            SYNC_NS,
            explicit("a", "b"),
            Optional.of(source("b")),
            cluster(ns("a"), ns("b")),
            List.of(),
            COPY_LABELS);

    assertThat(decision(plan, "a"))
        .isInstanceOfSatisfying(
            SyncPlan.Refused.class,
            r -> {
              assertThat(r.state()).isEqualTo(State.NOT_ALLOWED);
              assertThat(r.message()).contains("config.bosun.dev/allow-sync-to");
            });
    assertThat(decision(plan, "b")).isInstanceOf(SyncPlan.Write.class);
  }

  @Test
  void sourceConsentIsNeededEvenWhenDestinationConsentIsNot() {
    SyncPlan<ConfigMap> plan =
        lenient.plan(
            SYNC_NS,
            explicit("a"),
            Optional.of(source("other")),
            cluster(ns("a")),
            List.of(),
            COPY_LABELS);

    assertThat(decision(plan, "a"))
        .isInstanceOfSatisfying(
            SyncPlan.Refused.class, r -> assertThat(r.state()).isEqualTo(State.NOT_ALLOWED));
  }

  @Test
  void withoutDestinationConsentTheDestinationIsNotAllowedWhenConsentIsRequired() {
    Map<String, Namespace> cluster =
        cluster(nsAccepting("a", null), nsAccepting("b", "elsewhere"), nsAccepting("c", "*"));

    SyncPlan<ConfigMap> plan = plan(explicit("a", "b", "c"), cluster, List.of());

    for (String refused : List.of("a", "b")) {
      assertThat(decision(plan, refused))
          .as(refused)
          .isInstanceOfSatisfying(
              SyncPlan.Refused.class,
              r -> {
                assertThat(r.state()).isEqualTo(State.NOT_ALLOWED);
                assertThat(r.message()).contains("config.bosun.dev/accept-sync-from");
              });
    }
    assertThat(decision(plan, "c")).isInstanceOf(SyncPlan.Write.class);
  }

  @Test
  void withoutDestinationConsentTheCopyIsWrittenWhenConsentIsNotRequired() {
    SyncPlan<ConfigMap> plan =
        lenient.plan(
            SYNC_NS,
            explicit("a", "b"),
            Optional.of(source()),
            cluster(nsAccepting("a", null), nsAccepting("b", "elsewhere")),
            List.of(),
            COPY_LABELS);

    assertThat(plan.decisions())
        .hasSize(2)
        .allSatisfy(d -> assertThat(d).isInstanceOf(SyncPlan.Write.class));
  }

  // --- writes ---

  @Test
  void aMissingCopyIsCreatedWithLabelsAnnotationsAndContent() {
    ConfigMap source = new ConfigMapBuilder(source()).addToBinaryData("b", "AAEC").build();
    SyncRequest request = new SyncRequest(SOURCE, "app-copy", Set.of("a"), null);

    SyncPlan<ConfigMap> plan =
        planner.plan(
            SYNC_NS, request, Optional.of(source), cluster(ns("a")), List.of(), COPY_LABELS);

    assertThat(plan.decisions()).hasSize(1);
    assertThat(plan.deletions()).isEmpty();
    SyncPlan.Write<ConfigMap> write = (SyncPlan.Write<ConfigMap>) decision(plan, "a");
    assertThat(write.create()).isTrue();
    ConfigMap copy = write.copy();
    assertThat(copy.getMetadata().getName()).isEqualTo("app-copy");
    assertThat(copy.getMetadata().getNamespace()).isEqualTo("a");
    assertThat(copy.getMetadata().getLabels()).containsExactlyInAnyOrderEntriesOf(COPY_LABELS);
    assertThat(copy.getMetadata().getAnnotations())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(SOURCE_ANNOTATION, "src/app", HASH_ANNOTATION, kind.hash(source)));
    assertThat(copy.getMetadata().getAnnotations().get(HASH_ANNOTATION)).matches("[0-9a-f]{32}");
    assertThat(copy.getData()).containsExactlyEntriesOf(Map.of("k", "v1"));
    assertThat(copy.getBinaryData()).containsExactlyEntriesOf(Map.of("b", "AAEC"));
    assertThat(copy.getMetadata().getResourceVersion()).isNull();
  }

  @Test
  void aCopyWithTheSourcesContentLabelsAndAnnotationsIsUpToDate() {
    SyncPlan<ConfigMap> plan =
        plan(explicit("a"), cluster(ns("a")), copies(copyOf(source(), SOURCE, "a")));

    assertThat(plan.decisions()).containsExactly(new SyncPlan.UpToDate<>("a"));
    assertThat(plan.deletions()).isEmpty();
  }

  @Test
  void extraLabelsAndAnnotationsOnACopyDoNotMakeItStale() {
    ConfigMap copy =
        new ConfigMapBuilder(copyOf(source(), SOURCE, "a"))
            .editMetadata()
            .withResourceVersion("77")
            .addToLabels("added-by", "someone")
            .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{}")
            .endMetadata()
            .build();

    SyncPlan<ConfigMap> plan = plan(explicit("a"), cluster(ns("a")), copies(copy));

    assertThat(plan.decisions()).containsExactly(new SyncPlan.UpToDate<>("a"));
  }

  @Test
  void aCopyWithOtherContentIsUpdated() {
    ConfigMap stale = copyOf(source(), SOURCE, "a");
    stale.getData().put("k", "v0");

    SyncPlan<ConfigMap> plan = plan(explicit("a"), cluster(ns("a")), copies(stale));

    SyncPlan.Write<ConfigMap> write = (SyncPlan.Write<ConfigMap>) decision(plan, "a");
    assertThat(write.create()).isFalse();
    assertThat(write.copy().getData()).containsExactlyEntriesOf(Map.of("k", "v1"));
    assertThat(write.copy().getMetadata().getAnnotations())
        .containsEntry(HASH_ANNOTATION, kind.hash(source()));
    assertThat(plan.deletions()).isEmpty();
  }

  @Test
  void aCopyWithExtraContentIsUpdated() {
    ConfigMap stale = copyOf(source(), SOURCE, "a");
    stale.getData().put("leftover", "x");

    SyncPlan<ConfigMap> plan = plan(explicit("a"), cluster(ns("a")), copies(stale));

    assertThat(decision(plan, "a"))
        .isEqualTo(new SyncPlan.Write<>("a", copyOf(source(), SOURCE, "a"), false));
  }

  @Test
  void aCopyMissingALabelIsRewritten() {
    ConfigMap copy = copyOf(source(), SOURCE, "a");
    copy.getMetadata().getLabels().remove("config.bosun.dev/sync-kind");
    ConfigMap unlabelled = copyOf(source(), SOURCE, "a");
    unlabelled.getMetadata().setLabels(null);

    assertThat(decision(plan(explicit("a"), cluster(ns("a")), copies(copy)), "a"))
        .isEqualTo(new SyncPlan.Write<>("a", copyOf(source(), SOURCE, "a"), false));
    assertThat(decision(plan(explicit("a"), cluster(ns("a")), copies(unlabelled)), "a"))
        .isEqualTo(new SyncPlan.Write<>("a", copyOf(source(), SOURCE, "a"), false));
  }

  @Test
  void aCopyWithAStaleOrMissingAnnotationIsRewritten() {
    ConfigMap wrongHash = copyOf(source(), SOURCE, "a");
    wrongHash.getMetadata().getAnnotations().put(HASH_ANNOTATION, "0".repeat(32));
    ConfigMap wrongSource = copyOf(source(), SOURCE, "a");
    wrongSource.getMetadata().getAnnotations().put(SOURCE_ANNOTATION, "other/app");
    ConfigMap noAnnotations = copyOf(source(), SOURCE, "a");
    noAnnotations.getMetadata().setAnnotations(null);

    for (ConfigMap copy : List.of(wrongHash, wrongSource, noAnnotations)) {
      assertThat(decision(plan(explicit("a"), cluster(ns("a")), copies(copy)), "a"))
          .isEqualTo(new SyncPlan.Write<>("a", copyOf(source(), SOURCE, "a"), false));
    }
  }

  // --- deletions ---

  @Test
  void copiesInNamespacesThatAreNoLongerDestinationsAreDeleted() {
    ConfigMap kept = copyOf(source(), SOURCE, "a");
    ConfigMap unlisted = copyOf(source(), SOURCE, "b");
    ConfigMap unmatched = copyOf(source(), SOURCE, "c");
    ConfigMap nsGone = copyOf(source(), SOURCE, "gone");
    ConfigMap nsTerminating = copyOf(source(), SOURCE, "t");
    SyncRequest request = new SyncRequest(SOURCE, null, Set.of("a"), PROD);
    Map<String, Namespace> cluster =
        cluster(ns("a"), ns("b"), ns("c", "env", "dev"), terminating(ns("t", "env", "prod")));

    SyncPlan<ConfigMap> plan =
        plan(request, cluster, copies(kept, unlisted, unmatched, nsGone, nsTerminating));

    assertThat(plan.decisions()).containsExactly(new SyncPlan.UpToDate<>("a"));
    assertThat(plan.deletions())
        .containsExactlyInAnyOrder(unlisted, unmatched, nsGone, nsTerminating);
  }

  @Test
  void copiesWhereConsentWasWithdrawnAreDeleted() {
    ConfigMap inA = copyOf(source(), SOURCE, "a");
    ConfigMap inB = copyOf(source(), SOURCE, "b");
    ConfigMap inC = copyOf(source(), SOURCE, "c");
    // The source now allows only a and c; c no longer accepts copies from src.
    SyncPlan<ConfigMap> plan =
        planner.plan(
            SYNC_NS,
            explicit("a", "b", "c"),
            Optional.of(source("a, c")),
            cluster(ns("a"), ns("b"), nsAccepting("c", "other")),
            copies(inA, inB, inC),
            COPY_LABELS);

    assertThat(decision(plan, "a")).isInstanceOf(SyncPlan.UpToDate.class);
    assertThat(decision(plan, "b")).isInstanceOf(SyncPlan.Refused.class);
    assertThat(decision(plan, "c")).isInstanceOf(SyncPlan.Refused.class);
    assertThat(plan.deletions()).containsExactlyInAnyOrder(inB, inC);
  }

  @Test
  void aCopyUnderAnOldTargetNameIsDeleted() {
    ConfigMap old = copyOf(source(), "old-name", "a");
    SyncRequest request = new SyncRequest(SOURCE, "new-name", Set.of("a"), null);

    SyncPlan<ConfigMap> plan = plan(request, cluster(ns("a")), copies(old));

    assertThat(plan.deletions()).containsExactly(old);
    assertThat(plan.decisions()).extracting(SyncPlan.Decision::namespace).containsExactly("a");
  }

  @Test
  void aNewTargetNameIsCreatedNotTakenForTheOldCopy() {
    ConfigMap oldSameContent = copyOf(source(), "old-name", "a");
    ConfigMap oldOtherContent = copyOf(source(), "old-name", "b");
    oldOtherContent.getData().put("k", "v0");
    SyncRequest request = new SyncRequest(SOURCE, "new-name", Set.of("a", "b"), null);

    SyncPlan<ConfigMap> plan =
        plan(request, cluster(ns("a"), ns("b")), copies(oldSameContent, oldOtherContent));

    assertThat(plan.decisions())
        .containsExactly(
            new SyncPlan.Write<>("a", copyOf(source(), "new-name", "a"), true),
            new SyncPlan.Write<>("b", copyOf(source(), "new-name", "b"), true));
    assertThat(plan.deletions()).containsExactlyInAnyOrder(oldSameContent, oldOtherContent);
  }

  @Test
  void refusedDestinationsGetNoCopyAndKeepNone() {
    // A copy sitting in the conflicting namespace is not this sync's to keep either.
    ConfigMap inOwn = copyOf(source(), SOURCE, SYNC_NS);

    SyncPlan<ConfigMap> plan = plan(explicit(SYNC_NS), cluster(ns(SYNC_NS)), copies(inOwn));

    assertThat(plan.decisions()).singleElement().isInstanceOf(SyncPlan.Refused.class);
    assertThat(plan.deletions()).containsExactly(inOwn);
  }

  @Test
  void sameInputsGiveTheSamePlan() {
    SyncRequest request = new SyncRequest(SOURCE, null, Set.of("a", "ghost"), PROD);
    Map<String, Namespace> cluster =
        cluster(ns("a"), ns("b", "env", "prod"), nsAccepting("c", null, "env", "prod"));
    ConfigMap stale = copyOf(source(), SOURCE, "a");
    stale.getData().clear();

    assertThat(plan(request, cluster, copies(stale)))
        .isEqualTo(plan(request, cluster, copies(stale)));
  }
}
